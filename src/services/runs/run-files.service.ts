// The files of Runs as the API serves them: their list, a download (a pre-signed URL of the object store,
// or the bytes streamed through the API), the end of a Run's log while it grows, and whether the store
// can be written (readiness).
import { attachmentDisposition } from '../../lib/content-disposition.js';
import { NotFoundError } from '../../lib/errors.js';
import type { RunFileModel } from '../../schemas/runs.js';
import { StorageNotFoundError, type Storage } from '../../storage/index.js';
import type { AccessService } from '../access/access.service.js';
import type { Principal } from '../identity/principal.js';
import { readLogTail } from './log-tail.js';
import { runLogKey } from './run-keys.js';
import type { RunsRepository } from './runs.repository.js';
import { isActive } from './status-machine.js';

export function createRunFiles(deps: {
  repo: Pick<RunsRepository, 'listFiles' | 'findFile'>;
  access: Pick<AccessService, 'requireAgentRun'>;
  storage: Storage;
}) {
  const { repo, access, storage } = deps;
  const requireRun = (principal: Principal, agentId: number, runId: number) =>
    access.requireAgentRun(principal, agentId, runId, 'read');

  return {
    async files(principal: Principal, agentId: number, runId: number): Promise<RunFileModel[]> {
      await requireRun(principal, agentId, runId);
      return (await repo.listFiles(runId)).map((f) => ({
        id: f.id,
        name: f.name,
        fileType: f.fileType as RunFileModel['fileType'],
        fileSize: Number(f.fileSize),
        created: f.created,
      }));
    },

    /** Whether the store of Run files can be written now (readiness). */
    async storageWritable(): Promise<boolean> {
      return storage.probe().then(
        () => true,
        () => false,
      );
    },

    /**
     * A Run file: a pre-signed URL of the object store when it has one and `redirect` is not turned
     * off, otherwise its bytes streamed through the API.
     */
    async download(
      principal: Principal,
      agentId: number,
      runId: number,
      fileId: number,
      opts: { redirect: boolean } = { redirect: true },
    ) {
      await requireRun(principal, agentId, runId);
      const file = await repo.findFile(runId, fileId);
      if (!file) throw new NotFoundError(`File ${fileId} of run ${runId} was not found.`);
      const headers = { contentType: file.contentType, contentDisposition: attachmentDisposition(file.name) };
      if (opts.redirect && storage.presignGet)
        return { redirectUrl: await storage.presignGet(file.storageKey, headers) };
      try {
        return { ...headers, size: Number(file.fileSize), stream: await storage.get(file.storageKey) };
      } catch (err) {
        if (err instanceof StorageNotFoundError)
          throw new NotFoundError(`File ${fileId} of run ${runId} is no longer stored.`);
        throw err;
      }
    },

    /** The end of a Run's log as stored so far; while the Run is active it grows (log-tail.ts). */
    async logTail(principal: Principal, agentId: number, runId: number, lines: number) {
      const run = await requireRun(principal, agentId, runId);
      const tail = await readLogTail(storage, runLogKey(runId), lines);
      return { runId, status: run.status, active: isActive(run.status), ...tail };
    },
  };
}
