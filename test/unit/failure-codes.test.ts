// The failure code lists: every code has a message built from its parameters, and docs/errors.md
// documents every code (a code added without its documentation fails here).
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { failureColumns, runFailureMessage, RunFailureCode, stoppedBy } from '../../src/services/runs/run-errors.js';
import { WebhookFailureCode } from '../../src/services/webhooks/sender.js';

const docs = fs.readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
const documented = (section: string) => {
  const start = docs.indexOf(`## ${section}`);
  const end = docs.indexOf('\n## ', start + 1);
  return docs.slice(start, end === -1 ? undefined : end);
};

describe('Run failure codes', () => {
  it('every code is documented in docs/errors.md, "Run failure codes"', () => {
    const section = documented('Run failure codes');
    for (const code of Object.values(RunFailureCode)) expect(section, code).toContain(`| \`${code}\` |`);
  });

  it('every code has a message, built from its parameters', () => {
    // The union of what the failure sites pass.
    const params = {
      ...{
        url: 'https://x/',
        status: 500,
        attempts: 1,
        reason: 'the reason given',
        seconds: 3,
        kind: 'diskFull',
        input: 1,
      },
      ...{ problems: 'p', render: 'browser', hint: 'h', list: "selector 'li'", pages: 2, fields: "'a'", records: 4 },
      ...{ exitCode: '1', proxyPoolId: 5, when: 'exported', runId: 9 },
      ...{ criterion: 'minRecords', expected: 50, actual: 12, missed: 1 },
    };
    for (const code of Object.values(RunFailureCode)) {
      const message = runFailureMessage({ code, params });
      expect(message.length, code).toBeGreaterThan(10);
      expect(message, code).not.toContain('undefined');
    }
    const missed = { criterion: 'minRecords', expected: 50, actual: 12, missed: 1 };
    expect(runFailureMessage({ code: RunFailureCode.SuccessCriteriaMissed, params: missed })).toBe(
      'success criteria not met: minRecords 50, got 12',
    );
    expect(runFailureMessage({ code: RunFailureCode.RunTimeout, params: { seconds: 30 } })).toBe(
      'run timed out after 30 s',
    );
    expect(runFailureMessage({ code: RunFailureCode.RunTimeout, params: { seconds: 30, terminated: 1 } })).toBe(
      'The Run exceeded its timeout of 30 s and was terminated.',
    );
  });

  it('the columns hold the code, its parameters and the message built from them', () => {
    const f = { code: RunFailureCode.WorkerLost, params: { reason: 'heartbeat' } };
    expect(failureColumns(f)).toEqual({
      errorCode: 'WORKER_LOST',
      errorParams: f.params,
      errorMessage: runFailureMessage(f),
    });
    expect(failureColumns(null)).toEqual({ errorCode: null, errorParams: null, errorMessage: null });
  });

  it('a stop cut short by a failure names that failure', () => {
    const stop = stoppedBy('unclean', { code: RunFailureCode.RunTimeout, params: { seconds: 2 } });
    expect(stop).toEqual({
      code: 'STOPPED_BY_USER',
      params: { when: 'unclean', causeCode: 'RUN_TIMEOUT', cause: 'run timed out after 2 s' },
    });
    expect(runFailureMessage(stop)).toBe(
      'Stopped by user; it did not finish stopping cleanly: run timed out after 2 s',
    );
  });
});

describe('webhook delivery failure codes', () => {
  it('every code is documented in docs/errors.md, "Webhook delivery failure codes"', () => {
    const section = documented('Webhook delivery failure codes');
    for (const code of Object.values(WebhookFailureCode)) expect(section, code).toContain(`| \`${code}\` |`);
  });
});
