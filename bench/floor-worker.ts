// The floor of `bench -- runs` (bench/runs-floor.ts): a bare BullMQ worker process doing per Run only
// what a Run cannot do without: INSERT its Run row, run the same extraction in-process, write the same
// CSV to local disk, UPDATE the row to its terminal status. No child process, no status machine, no
// settlement, no log file, no heartbeat. The row is marked settled as it ends (same UPDATE): a terminal,
// unsettled Run is work for our workers' settlement sweep, which in the next round settled the floor's
// 400 Runs during our burst. Its name ends in `worker.ts` so that bench/count-statements.mjs
// counts its statements like a real worker's.
import { Worker } from 'bullmq';
import pg from 'pg';
import {
  engineFailureMessage,
  exportColumnsOf,
  exportFormatOf,
  exportRecords,
  runExtraction,
  type AgentDefinition,
} from '../src/engine/index.js';
import { LocalStorage } from '../src/storage/index.js';

export interface FloorJob {
  organizationId: number;
  agentId: number;
  /** Tags the Runs of one burst (Run.startedBy). */
  tag: string;
}

const need = (name: string) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is required`);
  return v;
};
const concurrency = Number(need('FLOOR_CONCURRENCY'));
const definition = JSON.parse(need('FLOOR_DEFINITION')) as AgentDefinition;
const pageCpuSeconds = Number(need('FLOOR_PAGE_CPU_SECONDS'));
const storage = new LocalStorage(need('STORAGE_DIR'));
const db = new pg.Pool({ connectionString: need('DATABASE_URL'), max: concurrency });
const redis = new URL(need('REDIS_URL'));

// Timestamps go in as ISO text cast to `timestamp`, as the service writes them (UTC, no zone).
const worker = new Worker<FloorJob>(
  need('FLOOR_QUEUE'),
  async (job) => {
    const { organizationId, agentId, tag } = job.data;
    const started = new Date().toISOString();
    const { rows } = await db.query<{ id: number }>(
      `INSERT INTO "Run" ("organizationId", "agentId", "agentVersion", "startedBy", status, "startTime", "statusChanged", updated)
       VALUES ($1, $2, 1, $3, 1, $4::timestamp, $4::timestamp, $4::timestamp) RETURNING id`,
      [organizationId, agentId, tag, started],
    );
    const runId = rows[0].id;
    const result = await runExtraction({ definition, inputRows: [], allowPrivateTargets: true, pageCpuSeconds });
    if (result.fatalError) throw new Error(engineFailureMessage(result.fatalError));
    const files = await exportRecords({
      storage,
      keyPrefix: `floor/${runId}`,
      format: exportFormatOf(definition),
      columns: exportColumnsOf(definition),
      sets: result.sets,
    });
    const exported = files.reduce((n, f) => n + f.records, 0);
    const ended = new Date().toISOString();
    await db.query(
      `UPDATE "Run" SET status = 10, "endTime" = $2::timestamp, "statusChanged" = $2::timestamp, updated = $2::timestamp, "settledAt" = $2::timestamp,
         "pageCount" = $3, "recordsExtracted" = $4, "recordsExported" = $5, "exportCount" = $5, traffic = $6
       WHERE id = $1`,
      [runId, ended, result.stats.pageCount, result.stats.dataCount, exported, result.stats.traffic],
    );
  },
  {
    connection: { host: redis.hostname, port: Number(redis.port || 6379), maxRetriesPerRequest: null },
    prefix: need('FLOOR_PREFIX'),
    concurrency,
  },
);
worker.on('failed', (job, err) => process.stderr.write(`floor job ${job?.id} failed: ${err.message}\n`));
await worker.waitUntilReady();
process.stdout.write('worker started\n');

process.on('SIGTERM', () => {
  void worker
    .close()
    .then(() => db.end())
    .finally(() => process.exit(0));
});
