// Preloaded into the benchmark's worker processes (NODE_OPTIONS=--import): counts the SQL statements
// the process sends through node-postgres and keeps the count in $BENCH_STATEMENTS_DIR/<pid>, so the
// benchmark can report statements per Run. Run children (which never query) are left alone.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const dir = process.env.BENCH_STATEMENTS_DIR;
const entry = process.argv[1] ?? '';
if (dir && /worker\.(ts|js)$/.test(entry)) {
  const pg = createRequire(path.resolve(entry))('pg');
  let count = 0;
  let written = -1;
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (...args) {
    count += 1;
    return query.apply(this, args);
  };
  const file = path.join(dir, String(process.pid));
  const write = () => {
    if (count === written) return;
    written = count;
    fs.writeFileSync(file, String(count));
  };
  setInterval(write, 100).unref();
  process.on('exit', write);
}
// With BENCH_CPU_PROF (profiles of the workers and run processes, --cpu-prof in NODE_OPTIONS), a
// run process ended by SIGTERM exits normally so that its profile is written.
if (process.env.BENCH_CPU_PROF && /run-child\.(ts|js)$/.test(entry)) process.on('SIGTERM', () => process.exit(0));
