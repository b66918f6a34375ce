import { createPrisma } from './src/db/prisma.js';
const db = createPrisma('postgresql://postgres@127.0.0.1:5432/cxs_bench_exp');
const n = 5000; const now = new Date();
const names = Array.from({ length: n }, (_, i) => `y ${i}`);
let t = performance.now();
const ids = await db.$queryRaw<Array<{ id: number }>>`
  INSERT INTO "Agent" ("organizationId","spaceId","userId","name","description","configType","startUrl","validationStatus","status","version","lastActivity","created","updated")
  SELECT 1, 2, 1, x.name, 'd', 1, 'https://a', 3, x.status, 1, x.at, x.at, x.at
  FROM unnest(${names}::text[], ${names.map(() => null)}::int[], ${names.map(() => now.toISOString())}::timestamptz[]) AS x(name, status, at)
  RETURNING "id"`;
console.log('unnest agents', (performance.now() - t).toFixed(0), ids.length);
const def = { startUrl: 'https://shop.example.com/x?q={{query}}', parameters: [{ name: 'query', defaultValue: 'x' }], list: { selector: '.item', fields: [{ name: 'title', selector: 'h2' }, { name: 'p', selector: '.p' }] } };
t = performance.now();
await db.$executeRaw`
  INSERT INTO "AgentVersion" ("agentId","version","definition","comments","fileSize","userName","created")
  SELECT x.id, 1, x.def, 'Seeded', x.size, 'x', now() FROM unnest(${ids.map((r) => r.id)}::int[], ${ids.map(() => JSON.stringify(def))}::jsonb[], ${ids.map(() => 10)}::int[]) AS x(id, def, size)`;
console.log('unnest versions', (performance.now() - t).toFixed(0));
await db.$disconnect();
