// Liveness and readiness (Postgres and Redis reachable). Unauthenticated and not rate limited.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { readiness } from '../../services/health/readiness.js';

const Health = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
    checks: Type.Optional(
      Type.Record(Type.String(), Type.Union([Type.Literal('ok'), Type.Literal('down'), Type.Literal('pending')])),
    ),
  },
  {
    examples: [
      { status: 'unavailable', checks: { postgres: 'ok', redis: 'ok', migrations: 'pending', storage: 'ok' } },
    ],
  },
);

const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/health/live',
    {
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
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/health/ready',
    {
      config: { public: true },
      logLevel: 'warn',
      schema: {
        tags: ['Health'],
        summary: 'Postgres and Redis are reachable, the database is migrated and run file storage is writable',
        description:
          'Readiness for a load balancer or orchestrator: 200 when PostgreSQL and Redis answer, every migration this build ships with is applied and the run file storage (STORAGE_DIR or the S3 bucket) can be written; 503 with the failing `checks` otherwise (`migrations: pending` means run `cli migrate`; `storage: down` means the folder or bucket refuses writes: full, read-only, permissions, credentials or an unreachable endpoint).',
        operationId: 'getReadiness',
        security: [],
        response: { 200: Health, 503: Health },
      },
    },
    async (_req, reply) => {
      const { ok, checks } = await readiness(app.db, app.redis, () => app.runs.storageWritable());
      return reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', checks });
    },
  );
};
export default healthRoutes;
