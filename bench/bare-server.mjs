// The floor of `npm run bench -- http`: a bare Fastify server whose routes each make ONE PostgreSQL
// query over `pg`, equivalent to what the service answers on the same path (no authentication, no
// validation, no access rules). Plain JavaScript so it runs as compiled code, like dist/server.js.
// Env: DATABASE_URL, PORT, DATABASE_POOL_SIZE.
import Fastify from 'fastify';
import pg from 'pg';

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_SIZE ?? 20),
});
const app = Fastify({ logger: false });

app.get('/api/v1/agent/:agentId', async (req, reply) => {
  const { rows } = await pool.query('SELECT * FROM "Agent" WHERE id = $1', [Number(req.params.agentId)]);
  if (!rows[0]) return reply.code(404).send({ status: 404 });
  return rows[0];
});

app.get('/api/v1/agent/:agentId/run/:runId/status', async (req, reply) => {
  const { rows } = await pool.query('SELECT * FROM "Run" WHERE id = $1 AND "agentId" = $2', [
    Number(req.params.runId),
    Number(req.params.agentId),
  ]);
  if (!rows[0]) return reply.code(404).send({ status: 404 });
  return rows[0];
});

// Page and exact total in one statement, as the service must also give both.
app.get('/api/v1/agent/all', async (req) => {
  const page = Number(req.query.pageIndex ?? 1);
  const size = Number(req.query.recordsPerPage ?? 50);
  const { rows } = await pool.query(
    'SELECT *, count(*) OVER () AS "totalRecordCount" FROM "Agent" WHERE "organizationId" = $1 AND NOT "isArchived" ORDER BY name, id LIMIT $2 OFFSET $3',
    [Number(process.env.BENCH_ORG_ID ?? 1), size, (page - 1) * size],
  );
  return { agents: rows, totalRecordCount: Number(rows[0]?.totalRecordCount ?? 0) };
});

await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.stdout.write(`listening ${app.server.address().port}\n`);
process.on('SIGTERM', () =>
  app
    .close()
    .then(() => pool.end())
    .then(() => process.exit(0)),
);
