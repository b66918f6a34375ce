// Preloaded into the benchmark's worker processes (and so their run processes) (NODE_OPTIONS=--import): counts the SQL round trips (node-postgres queries)
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
  let written = 0;
  const query = pg.Client.prototype.query;
  // BENCH_STATEMENTS_LOG=<file>: each statement's text too (one line each), to see where they go.
  const log = process.env.BENCH_STATEMENTS_LOG;
  pg.Client.prototype.query = function (...args) {
    count += 1;
    if (log) {
      const text = typeof args[0] === 'string' ? args[0] : (args[0]?.text ?? '?');
      fs.appendFileSync(log, `${process.pid} ${text.replace(/\s+/g, ' ').slice(0, 160)}\n`);
    }
    return query.apply(this, args);
  };
  const file = path.join(dir, String(process.pid));
  // Written when asked (SIGUSR2), so that counting costs the worker nothing measurable.
  const write = () => {
    written += 1;
    fs.writeFileSync(file, `${count} ${written}`);
  };
  write();
  process.on('SIGUSR2', write);
}
// With BENCH_CPU_PROF=<dir>, the workers and their run processes are CPU-profiled (the inspector's
// profiler; --cpu-prof is refused in NODE_OPTIONS), the profile written on exit; a run process ended by
// SIGTERM exits normally so that its profile is written.
const profDir = process.env.BENCH_CPU_PROF;
if (profDir && /(worker|run-child)\.(ts|js)$/.test(entry)) {
  const { Session } = await import('node:inspector');
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.start');
  process.on('exit', () => {
    // The in-process session answers synchronously, so this works inside 'exit'.
    session.post('Profiler.stop', (err, res) => {
      if (!err)
        fs.writeFileSync(
          path.join(profDir, `${path.basename(entry).replace(/\..*$/, '')}.${process.pid}.cpuprofile`),
          JSON.stringify(res.profile),
        );
    });
  });
  if (/run-child\.(ts|js)$/.test(entry)) process.on('SIGTERM', () => process.exit(0));
}
