// Files no Run row accounts for: a worker that died between writing a Run's files and recording them
// leaves them in the store. The sweep (a maintenance job, hourly) adopts the files of ended Runs (a row
// per export, log or failed-page file, so users can download them and deleting the Run removes them),
// removes the folders of Runs that no longer exist, and discards the half-done writes of both (a local
// temporary file, an S3 multipart upload a killed worker could not abort). Active Runs are left alone:
// their worker records their files when it finishes. The store is read with one walk over `runs/`
// (on S3 one listing request per thousand objects, not one per Run and per file).
import { CONTENT_TYPES, type RunFileType } from '../../engine/index.js';
import { type Storage } from '../../storage/index.js';
import { isInternalRunFile, parseRunKey, runFileKey, runFolderKey, RUNS_ROOT } from './run-keys.js';
import type { RunsRepository } from './runs.repository.js';
import { isTerminal } from './status-machine.js';

const TYPES: Record<string, RunFileType> = {
  csv: 'Csv',
  json: 'Json',
  ndjson: 'Ndjson',
  log: 'Log',
  html: 'Html',
  png: 'Png',
};
const BATCH = 500;

export interface SweepResult {
  adopted: number;
  removed: number;
  discarded: number;
}

export function createOrphanFileSweep(deps: {
  repo: Pick<RunsRepository, 'findRunsWithFileKeys' | 'replaceFiles'>;
  storage: Storage;
}) {
  const { repo, storage } = deps;

  /** The objects directly in each Run's folder (name and size), and the Runs with half-done writes. */
  async function readStore() {
    const objects = new Map<number, Array<{ name: string; size: number }>>();
    for await (const page of storage.walk(RUNS_ROOT)) {
      for (const o of page) {
        const parsed = parseRunKey(o.key);
        if (!parsed) continue;
        const list = objects.get(parsed.runId) ?? [];
        // A key deeper down still marks the Run's folder as existing, but is no file of the Run.
        if (!parsed.rest.includes('/')) list.push({ name: parsed.rest, size: o.size });
        objects.set(parsed.runId, list);
      }
    }
    const incomplete = new Set<number>();
    for (const key of await storage.listIncomplete(RUNS_ROOT)) {
      const parsed = parseRunKey(key);
      if (parsed) incomplete.add(parsed.runId);
    }
    return { objects, incomplete };
  }

  return async function sweepOrphanFiles(): Promise<SweepResult> {
    const { objects, incomplete } = await readStore();
    const ids = [...new Set([...objects.keys(), ...incomplete])].sort((a, b) => a - b);
    const result: SweepResult = { adopted: 0, removed: 0, discarded: 0 };
    for (let i = 0; i < ids.length; i += BATCH) {
      const batch = ids.slice(i, i + BATCH);
      const runs = new Map((await repo.findRunsWithFileKeys(batch)).map((r) => [r.id, r]));
      for (const id of batch) {
        const run = runs.get(id);
        if (run && !isTerminal(run.status)) continue;
        if (incomplete.has(id)) result.discarded += await storage.discardIncomplete(runFolderKey(id));
        if (!run) {
          if (objects.has(id)) {
            await storage.delete(runFolderKey(id));
            result.removed += 1;
          }
          continue;
        }
        const known = new Set(run.files.map((f) => f.storageKey));
        const found = [];
        for (const { name, size } of objects.get(id) ?? []) {
          const key = runFileKey(id, name);
          const fileType = TYPES[name.slice(name.lastIndexOf('.') + 1)];
          if (!fileType || known.has(key) || isInternalRunFile(name) || name.endsWith('.tmp')) continue;
          found.push({ name, fileType, contentType: CONTENT_TYPES[fileType], fileSize: size, storageKey: key });
        }
        if (found.length > 0) {
          await repo.replaceFiles(id, found);
          result.adopted += found.length;
        }
      }
    }
    return result;
  };
}
export type SweepOrphanFiles = ReturnType<typeof createOrphanFileSweep>;
