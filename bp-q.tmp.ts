import pg from 'pg';
import fs from 'node:fs';
const c = new pg.Client({ connectionString: 'postgresql://postgres@127.0.0.1:5432/cxs_bpscratch' }); await c.connect();
const qs = fs.readFileSync(process.argv[2], 'utf8').split(/\n---\n/).map((q) => q.trim()).filter(Boolean);
const n = Number(process.argv[3] ?? 15);
for (const q of qs) {
  const t: number[] = [];
  for (let i = 0; i < n; i++) { const s = performance.now(); await c.query(q); t.push(performance.now() - s); }
  t.sort((a, b) => a - b);
  console.log(`min ${t[0].toFixed(1)} med ${t[n >> 1].toFixed(1)}  ${q.replace(/\s+/g, ' ').slice(0, 110)}`);
}
await c.end();
