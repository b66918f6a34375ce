// Files no Run row accounts for: a worker that died between writing a Run's files and recording them
// leaves them on disk. The sweep (a maintenance job, hourly) adopts the files of ended Runs (a row per
// export, log or failed-page file, so users can download them and deleting the Run removes them) and
// removes the folders of Runs that no longer exist. Active Runs are left alone: their worker records
// their files when it finishes.
import { CONTENT_TYPES, type RunFileType, type Storage } from '../../engine/index.js';
import { runKeyPrefix } from './run-protocol.js';
import type { RunsRepository } from './runs.repository.js';
import { isTerminal } from './status-machine.js';

const TYPES: Record<string, RunFileType> = { csv: 'Csv', json: 'Json', ndjson: 'Ndjson', log: 'Log', html: 'Html' };
const BATCH = 500;

export function createOrphanFileSweep(deps: {
  repo: Pick<RunsRepository, 'findRunsWithFileKeys' | 'replaceFiles'>;
  storage: Storage;
}) {
  const { repo, storage } = deps;

  return async function sweepOrphanFiles(): Promise<{ adopted: number; removed: number }> {
    const ids = (await storage.list('runs')).filter((n) => /^[1-9]\d{0,9}$/.test(n)).map(Number);
    let adopted = 0;
    let removed = 0;
    for (let i = 0; i < ids.length; i += BATCH) {
      const batch = ids.slice(i, i + BATCH);
      const runs = new Map((await repo.findRunsWithFileKeys(batch)).map((r) => [r.id, r]));
      for (const id of batch) {
        const run = runs.get(id);
        if (!run) {
          await storage.delete(runKeyPrefix(id));
          removed += 1;
          continue;
        }
        if (!isTerminal(run.status)) continue;
        const known = new Set(run.files.map((f) => f.storageKey));
        const found = [];
        for (const name of await storage.list(runKeyPrefix(id))) {
          const key = `${runKeyPrefix(id)}/${name}`;
          const fileType = TYPES[name.slice(name.lastIndexOf('.') + 1)];
          // `_`-files are internal (records kept for a synchronous start, spools of a run process).
          if (!fileType || known.has(key) || name.startsWith('_') || name.endsWith('.tmp')) continue;
          const size = (await storage.stat(key))?.size;
          if (size === undefined) continue;
          found.push({ name, fileType, contentType: CONTENT_TYPES[fileType], fileSize: size, storageKey: key });
        }
        if (found.length > 0) {
          await repo.replaceFiles(id, found);
          adopted += found.length;
        }
      }
    }
    return { adopted, removed };
  };
}
export type SweepOrphanFiles = ReturnType<typeof createOrphanFileSweep>;
