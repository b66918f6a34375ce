// Resumable Runs rendered in Chromium (test/helpers/resume-drill.ts): a 30-page browser Run whose worker
// gets SIGTERM or SIGKILL goes on from its last checkpoint on another worker, as an HTTP Run does.
import { describe, expect, it } from 'vitest';
import { useResumeDrill } from '../helpers/resume-drill.js';

const { drill, expectResumed } = useResumeDrill('browser');

describe('a 30-page browser Run whose worker is interrupted', () => {
  it('SIGTERM at page 10: handed back, resumed on another worker', async () => {
    const r = await drill('SIGTERM', 10);
    expectResumed(r);
    expect(r.log).toContain('Interrupted: the worker shut down and handed the Run back to the queue');
  });

  it('SIGKILL at page 15: taken over after RUN_STALE_SECONDS', async () => {
    expectResumed(await drill('SIGKILL', 15));
  });
});
