// Liveness and readiness (Postgres and Redis reachable). Unauthenticated and not rate limited.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { probeMigrations, probeStores } from '../../db/health.js';

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  checks: Type.Optional(Type.Record(Type.String(), Type.Union([Type.Literal('ok'), Type.Literal('down'), Type.Literal('pending')]))),
}, { examples: [{ status: 'unavailable', checks: { postgres: 'ok', redis: 'ok', migrations: 'pending' } }] });

const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/health/live', {
    config: { public: true },
    // Probed every few seconds: a probe writes no info line, only a failure (503) is logged.
    logLevel: 'warn',
    schema: {
      tags: ['Health'],
      summary: 'The process is up',
      description: 'Liveness: 200 while the process can answer HTTP, whatever the state of its dependencies.',
      operationId: 'getLiveness',
      security: [],
      response: { 200: Health },
    },
  }, async () => ({ status: 'ok' as const }));

  app.get('/health/ready', {
    config: { public: true },
    logLevel: 'warn',
    schema: {
      tags: ['Health'],
      summary: 'Postgres and Redis are reachable and the database is migrated',
      description: 'Readiness for a load balancer or orchestrator: 200 when PostgreSQL and Redis answer and every migration this build ships with is applied; 503 with the failing `checks` otherwise (`migrations: pending` means run `cli migrate`).',
      operationId: 'getReadiness',
      security: [],
      response: { 200: Health, 503: Health },
    },
  }, async (_req, reply) => {
    const [stores, migrations] = await Promise.all([probeStores(app.db, app.redis), probeMigrations(app.db)]);
    const checks = { ...stores, migrations };
    const ok = checks.postgres === 'ok' && checks.redis === 'ok' && migrations === 'ok';
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', checks });
  });
};
export default healthRoutes;
