// Liveness and readiness (Postgres and Redis reachable). Unauthenticated and not rate limited.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { probeStores } from '../../db/health.js';

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  checks: Type.Optional(Type.Record(Type.String(), Type.Union([Type.Literal('ok'), Type.Literal('down')]))),
});

const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/health/live', {
    config: { public: true },
    schema: { tags: ['Health'], summary: 'The process is up', security: [], response: { 200: Health } },
  }, async () => ({ status: 'ok' as const }));

  app.get('/health/ready', {
    config: { public: true },
    schema: { tags: ['Health'], summary: 'Postgres and Redis are reachable', security: [], response: { 200: Health, 503: Health } },
  }, async (_req, reply) => {
    const checks = await probeStores(app.db, app.redis);
    const ok = checks.postgres === 'ok' && checks.redis === 'ok';
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', checks });
  });
};
export default healthRoutes;
