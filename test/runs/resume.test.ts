// Resumable Runs over HTTP, drilled with real workers (test/helpers/resume-drill.ts): SIGTERM and SIGKILL
// of the worker at several pages of a 30-page Run; another worker goes on from the last checkpoint.
import { describe, expect, it } from 'vitest';
import { useResumeDrill } from '../helpers/resume-drill.js';

const { drill, expectResumed } = useResumeDrill('http');

describe('a 30-page Run whose worker is interrupted', { timeout: 240_000 }, () => {
  it('SIGTERM at page 10: handed back, resumed on another worker', async () => {
    const r = await drill('SIGTERM', 10);
    expectResumed(r);
    expect(r.log).toContain('Interrupted: the worker shut down and handed the Run back to the queue');
  });

  it('SIGTERM at page 18 (the grace takes it to about page 25)', async () => {
    expectResumed(await drill('SIGTERM', 18));
  });

  it('SIGKILL at page 5: taken over after RUN_STALE_SECONDS', async () => {
    const r = await drill('SIGKILL', 5);
    expectResumed(r);
    expect(r.log).toMatch(/Interrupted: the worker executing the Run was lost .*; taken over \(1 of at most 3\)/);
  });

  it('SIGKILL at page 20', async () => {
    expectResumed(await drill('SIGKILL', 20));
  });
});
