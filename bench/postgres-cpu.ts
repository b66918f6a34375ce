// PostgreSQL's CPU during a burst, split by the client process each backend serves (CPU per
// Run split by process). Every process of a bench names its connections with PGAPPNAME (node-postgres
// reads it), and pg_stat_activity gives each backend's application_name; its CPU comes from /proc.
import pg from 'pg';
import { ADMIN_URL, fmt, print, processCpuMs, table, type BurstFigures } from './helpers.js';

/** The application_name of each kind of client process of the runs bench. */
export const PG_CLIENTS = {
  api: 'cxs-bench-api',
  poll: 'cxs-bench-poll',
  worker: 'cxs-bench-worker',
  floor: 'cxs-bench-floor',
} as const;

export type PostgresCpuSnapshot = Map<number, { client: string; ms: number }>;

/** Every client backend of the server with its application_name and CPU so far. */
export async function postgresCpuSnapshot(): Promise<PostgresCpuSnapshot> {
  const c = new pg.Client({ connectionString: ADMIN_URL, application_name: 'cxs-bench-admin' });
  await c.connect();
  try {
    const { rows } = await c.query<{ pid: number; client: string }>(
      `SELECT pid, application_name AS client FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
    );
    const snapshot: PostgresCpuSnapshot = new Map();
    for (const { pid, client } of rows) {
      // NaN: the backend ended meanwhile.
      const ms = processCpuMs(pid).own;
      if (!Number.isNaN(ms)) snapshot.set(pid, { client: client || 'other', ms });
    }
    return snapshot;
  } finally {
    await c.end();
  }
}

/**
 * Backend CPU (ms) since `before`, per client name. Backends that ended meanwhile are left out (their CPU went
 * with them, as in serviceCpuSince); new ones count whole.
 */
export async function postgresCpuSince(before: PostgresCpuSnapshot): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [pid, { client, ms }] of await postgresCpuSnapshot())
    out[client] = (out[client] ?? 0) + ms - (before.get(pid)?.ms ?? 0);
  return out;
}

type Burst = Pick<BurstFigures, 'workers' | 'round' | 'postgresByClientMsPerRun'>;

/** PostgreSQL's CPU per Run by client, ours (each build) next to the floor of the same worker count and round. */
export function printPostgresTable(ours: Array<Burst & { mode: string }>, floors: Burst[]): void {
  const of = (b: Burst, client: string) => b.postgresByClientMsPerRun[client] ?? 0;
  const known: string[] = Object.values(PG_CLIENTS);
  const others = (b: Burst) =>
    Object.entries(b.postgresByClientMsPerRun).reduce((n, [k, ms]) => (known.includes(k) ? n : n + ms), 0);
  const rows = ours.flatMap((o) => {
    const f = floors.find((s) => s.workers === o.workers && s.round === o.round);
    if (!f) return [];
    const total = (b: Burst) => Object.values(b.postgresByClientMsPerRun).reduce((n, ms) => n + ms, 0);
    return [
      [
        o.mode,
        `${o.workers} (round ${o.round})`,
        `${fmt(of(o, PG_CLIENTS.api), 2)} + ${fmt(of(o, PG_CLIENTS.worker), 2)} + ${fmt(of(o, PG_CLIENTS.poll), 2)} + ${fmt(others(o), 2)} = ${fmt(total(o), 2)}`,
        `${fmt(of(f, PG_CLIENTS.floor), 2)} + ${fmt(of(f, PG_CLIENTS.poll), 2)} + ${fmt(others(f), 2)} = ${fmt(total(f), 2)}`,
      ],
    ];
  });
  print(
    table(
      'Runs: PostgreSQL backends\u2019 CPU per Run by the process they serve (ms)',
      [
        'ours',
        'workers',
        'ours: API (the starts) + workers + bench polling + other',
        'floor: workers + bench polling + other',
      ],
      rows,
    ),
  );
  print(
    'From pg_stat_activity (each process names its connections) and /proc; backends that ended during the burst ' +
      'are left out. "Other": the bench\u2019s own set-up connections and anything else on the server.',
  );
}
