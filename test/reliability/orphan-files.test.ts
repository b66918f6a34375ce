// Files a lost worker wrote but never recorded: adopted for ended Runs, removed for Runs that no
// longer exist, left alone for active Runs; half-written files of ended Runs discarded. (The same
// sweep on the s3 driver, through the worker: orphan-files-s3.test.ts.)
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalStorage } from '../../src/storage/index.js';
import { createOrphanFileSweep } from '../../src/services/runs/orphan-files.js';
import { createRunsRepository } from '../../src/services/runs/runs.repository.js';
import { auth, createTestContext, type TestContext } from '../helpers/app.js';
import { createAgent } from '../helpers/runs.js';

let ctx: TestContext;
let org: Awaited<ReturnType<TestContext['bootstrap']>>;
beforeAll(async () => {
  ctx = await createTestContext();
  org = await ctx.bootstrap();
});
afterAll(async () => {
  await ctx?.close();
});

const write = (runId: number, name: string, text: string) => {
  const file = path.join(ctx.config.storageDir, 'runs', String(runId), name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};

describe('orphaned run files', () => {
  it('adopts the files of an ended Run, leaves an active Run alone and removes the folder of a deleted Run', async () => {
    const start = async (name: string) => {
      const agent = await createAgent(
        ctx.app,
        org.apiKey,
        org.spaceId,
        { startUrl: 'http://127.0.0.1:9/', list: { selector: 'div', fields: [{ name: 'x' }] } },
        name,
      );
      const res = await ctx.app.inject({
        method: 'POST',
        url: `/api/v1/agent/${agent.id}/start`,
        headers: auth(org.apiKey),
        payload: {},
      });
      return { agentId: agent.id, runId: res.json().id as number };
    };
    const ended = await start('Ended');
    const active = await start('Active');
    await ctx.db.run.update({ where: { id: ended.runId }, data: { status: 6, endTime: new Date() } });
    await ctx.db.run.update({ where: { id: active.runId }, data: { status: 1 } });
    write(ended.runId, 'data.csv', 'title\r\nA\r\n');
    write(ended.runId, 'run.log', 'a line\n');
    write(ended.runId, '_records.ndjson', '{"title":"A"}\n');
    write(ended.runId, 'data.csv.0123456789ab.tmp', 'half');
    write(active.runId, 'data.csv.ba9876543210.tmp', 'half');
    write(active.runId, 'data.csv', 'title\r\n');
    const goneId = 2_000_000_000;
    write(goneId, 'data.csv', 'title\r\n');

    const sweep = createOrphanFileSweep({
      repo: createRunsRepository(ctx.db),
      storage: new LocalStorage(ctx.config.storageDir),
    });
    expect(await sweep()).toEqual({ adopted: 2, removed: 1, discarded: 1 });
    const files = (
      await ctx.app.inject({
        method: 'GET',
        url: `/api/v1/agent/${ended.agentId}/run/${ended.runId}/files`,
        headers: auth(org.apiKey),
      })
    ).json();
    expect(
      files.map((f: { name: string; fileType: string; fileSize: number }) => [f.name, f.fileType, f.fileSize]).sort(),
    ).toEqual([
      ['data.csv', 'Csv', 10],
      ['run.log', 'Log', 7],
    ]);
    expect(
      (
        await ctx.app.inject({
          method: 'GET',
          url: `/api/v1/agent/${active.agentId}/run/${active.runId}/files`,
          headers: auth(org.apiKey),
        })
      ).json(),
    ).toEqual([]);
    expect(fs.existsSync(path.join(ctx.config.storageDir, 'runs', String(goneId)))).toBe(false);
    // The ended Run's half-written file is gone; the active Run's write in progress is not touched.
    const dir = (id: number) => fs.readdirSync(path.join(ctx.config.storageDir, 'runs', String(id))).sort();
    expect(dir(ended.runId)).toEqual(['_records.ndjson', 'data.csv', 'run.log']);
    expect(dir(active.runId)).toEqual(['data.csv', 'data.csv.ba9876543210.tmp']);
    // Repeating it changes nothing.
    expect(await sweep()).toEqual({ adopted: 0, removed: 0, discarded: 0 });
  });
});
