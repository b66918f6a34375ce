// Diagnoses of a Run: one table of rules over its status, error message, the evidence the engine
// recorded and the Agent's own history. Each rule that applies names its evidence with numbers and
// suggests actions the user can take in this product. Pure: no I/O, no clock.
import { STORAGE_FAILURE_PREFIX, type RunEvidence } from '../../engine/index.js';
import { RunStatus } from '../runs/status-machine.js';

export interface DiagnosisInput {
  agentId: number;
  runId: number;
  status: number;
  errorMessage: string | null;
  stats: { dataCount: number; pageCount: number; errorCount: number; inputCount: number; exportCount: number };
  evidence: RunEvidence | null;
  run: { proxyPoolId: number | null; parallelMaxConcurrency: number; timeoutSeconds: number | null };
  /** The definition the Run executed (selectors only; null when its version is gone). */
  definition: {
    startUrl: string;
    listSelector: string;
    nextSelector: string | null;
    fields: Array<{ name: string; selector?: string; required?: boolean }>;
    timeoutSeconds: number | null;
  } | null;
  /** Records extracted by the Agent's recent successful Runs before this one, newest first. */
  recentRecordCounts: number[];
}

export interface Finding {
  rule: string;
  cause: string;
  actions: string[];
}

export interface DiagnosisRule {
  name: string;
  diagnose(input: DiagnosisInput): Finding | null;
}

/** A drop is reported when a Run extracts less than this share of the recent median. */
export const RECORD_DROP_RATIO = 0.5;
/** The median needs at least this many earlier successful Runs to mean anything. */
export const RECORD_DROP_MIN_HISTORY = 3;

const S = RunStatus;
const isStopped = (i: DiagnosisInput) => i.status === S.Stopped;
const isFailed = (i: DiagnosisInput) => i.status === S.Failure || i.status === S.Failed || i.status === S.Waiting;
const msg = (i: DiagnosisInput) => i.errorMessage ?? '';
const count = (c: Record<string, number> | undefined, k: string) => c?.[k] ?? 0;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const firstAt = (e: RunEvidence | null, kind: string) => (e?.firstUrls[kind] ? ` (first: ${e.firstUrls[kind]})` : '');

export function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function proxyAction(i: DiagnosisInput): string {
  return i.run.proxyPoolId === null
    ? `Assign a proxy pool to the Agent (PUT /api/v1/agent/${i.agentId} with proxyPoolId) or start the Run with one, so requests come from other addresses.`
    : `Try another proxy pool: the one this Run used (proxy pool ${i.run.proxyPoolId}) was refused too.`;
}

const restart = (i: DiagnosisInput) => `Start the Agent again (POST /api/v1/agent/${i.agentId}/start).`;

export const DIAGNOSIS_RULES: readonly DiagnosisRule[] = [
  {
    name: 'creditsExhausted',
    diagnose: (i) =>
      /credit/i.test(msg(i))
        ? {
            rule: 'creditsExhausted',
            cause: `The organization had no credits left for this Run: ${msg(i)}`,
            actions: [
              'Ask an operator to grant credits to the organization (cli: grant-credits --org ID --amount N), then start the Agent again.',
              'Check the balance with GET /api/v1/billing/credits.',
            ],
          }
        : null,
  },
  {
    name: 'storageFailure',
    diagnose: (i) =>
      isFailed(i) && msg(i).startsWith(STORAGE_FAILURE_PREFIX)
        ? {
            rule: 'storageFailure',
            cause: `The service could not store the Run's files: ${msg(i).slice(STORAGE_FAILURE_PREFIX.length).trim()}`,
            actions: [
              'Ask the operator to fix the storage named above (GET /health/ready reports storage: down while it cannot be written).',
              restart(i),
            ],
          }
        : null,
  },
  {
    name: 'killedByUser',
    diagnose: (i) =>
      isStopped(i) && /^Killed by user/.test(msg(i))
        ? {
            rule: 'killedByUser',
            cause: `Killed by a user: the run process was terminated at once after ${plural(i.stats.pageCount, 'page')} and ${plural(i.stats.dataCount, 'record')}; records not yet exported were lost.`,
            actions: [
              restart(i),
              'To keep the data extracted so far, stop a Run (one stop or kill call) and let it finish stopping instead of killing it twice.',
            ],
          }
        : null,
  },
  {
    name: 'stoppedByUser',
    diagnose: (i) => {
      if (!isStopped(i) || /^Killed by user/.test(msg(i))) return null;
      const lost = /worker .* was lost/.test(msg(i))
        ? ' The worker executing it was lost before it finished stopping.'
        : '';
      return {
        rule: 'stoppedByUser',
        cause: `Stopped by a user after ${plural(i.stats.pageCount, 'page')} and ${plural(i.stats.dataCount, 'record')}; ${plural(i.stats.exportCount, 'record')} extracted until then were exported.${lost}`,
        actions: [restart(i) + ' It runs from the beginning.'],
      };
    },
  },
  {
    name: 'workerLost',
    diagnose: (i) =>
      !isStopped(i) && /worker executing this Run was lost/.test(msg(i))
        ? {
            rule: 'workerLost',
            cause: `The worker process executing the Run stopped (crashed, was killed or lost its machine) after ${plural(i.stats.pageCount, 'page')} and ${plural(i.stats.dataCount, 'record')}; the Run did not finish.`,
            actions: [
              `${restart(i)} Start it with isWaitOnFailure: true to have a lost Run retried automatically.`,
              'If it happens again, ask the operator to check the worker logs and memory limits (a run process killed for memory ends like this).',
            ],
          }
        : null,
  },
  {
    name: 'runTimeout',
    diagnose: (i) => {
      const m = msg(i).match(/run timed out after (\d+) s/);
      if (!m) return null;
      return {
        rule: 'runTimeout',
        cause: `The Run reached its time limit of ${m[1]} s after ${plural(i.stats.pageCount, 'page')} and ${plural(i.stats.dataCount, 'record')}.`,
        actions: [
          `Raise timeoutSeconds in the Agent definition (now ${m[1]} s) with PUT /api/v1/agent/${i.agentId}.`,
          'Or make each Run shorter: lower next.maxPages, or split the inputs into parallel sets (parallelism).',
        ],
      };
    },
  },
  {
    name: 'blocked',
    diagnose: (i) => {
      const e = i.evidence;
      const n403 = count(e?.responsesByCode, '403');
      const n429 = count(e?.responsesByCode, '429');
      const fromMessage = !e && /answered (403|429)/.test(msg(i));
      if (n403 + n429 === 0 && !fromMessage) return null;
      if (fromMessage) {
        return {
          rule: 'blocked',
          cause: `The target site refused the Run's requests: ${msg(i)}`,
          actions: [proxyAction(i)],
        };
      }
      const parts = [
        n403 > 0 ? `${n403} answered 403 Forbidden${firstAt(e, 'http403')}` : '',
        n429 > 0 ? `${n429} answered 429 Too Many Requests${firstAt(e, 'http429')}` : '',
      ]
        .filter(Boolean)
        .join(' and ');
      const actions = [proxyAction(i)];
      if (n429 > 0 || i.run.parallelMaxConcurrency > 1) {
        actions.push(
          `Lower parallelMaxConcurrency (now ${i.run.parallelMaxConcurrency}) when starting or scheduling the Agent, so the site sees fewer simultaneous requests.`,
        );
      }
      return {
        rule: 'blocked',
        cause: `The target site blocked the Run: of ${plural(e!.requests, 'page request')}, ${parts}.`,
        actions,
      };
    },
  },
  {
    name: 'dnsFailure',
    diagnose: (i) => {
      const n = count(i.evidence?.networkErrors, 'dns');
      if (n === 0 && !/could not resolve host/.test(msg(i))) return null;
      const host = i.definition ? safeHost(i.definition.startUrl) : null;
      const what =
        n > 0
          ? `${n} of ${plural(i.evidence!.requests, 'page request')} failed because the host name could not be resolved (DNS)${firstAt(i.evidence, 'dns')}.`
          : `${msg(i)}.`;
      return {
        rule: 'dnsFailure',
        cause: what,
        actions: [
          `Check the host name${host ? ` '${host}'` : ''} in the Agent's startUrl for typos (PUT /api/v1/agent/${i.agentId}); the site may have moved or its domain expired.`,
          'If the site is on an internal network, ask the operator whether the workers can resolve it.',
        ],
      };
    },
  },
  {
    name: 'connectionFailure',
    diagnose: (i) => {
      const e = i.evidence;
      const kinds = (['refused', 'reset', 'tls'] as const)
        .map((k) => [k, count(e?.networkErrors, k)] as const)
        .filter(([, n]) => n > 0);
      const fromMessage = !e && /connection (refused|reset)|TLS error/.test(msg(i));
      if (kinds.length === 0 && !fromMessage) return null;
      const label = { refused: 'connection refused', reset: 'connection reset', tls: 'TLS error' };
      const cause = fromMessage
        ? `The site could not be reached: ${msg(i)}.`
        : `${kinds.map(([k, n]) => `${n} ${label[k]}${firstAt(e, k)}`).join(', ')} of ${plural(e!.requests, 'page request')}: the site could not be reached.`;
      return {
        rule: 'connectionFailure',
        cause,
        actions: [
          'Check that the site is up and that the startUrl has the right scheme and port (https vs http).',
          proxyAction(i).replace(
            'so requests come from other addresses',
            'in case the site drops connections from this server',
          ),
        ],
      };
    },
  },
  {
    name: 'requestTimeouts',
    diagnose: (i) => {
      const n = count(i.evidence?.networkErrors, 'timeout');
      if (n === 0) return null;
      return {
        rule: 'requestTimeouts',
        cause: `${n} of ${plural(i.evidence!.requests, 'page request')} timed out without an answer${firstAt(i.evidence, 'timeout')}.`,
        actions: [
          `Lower parallelMaxConcurrency (now ${i.run.parallelMaxConcurrency}) so the site is not overloaded.`,
          'If the site is just slow, ask the operator to raise ENGINE_REQUEST_TIMEOUT_MS.',
        ],
      };
    },
  },
  {
    name: 'pageOverBudget',
    diagnose: (i) => {
      const n = i.evidence?.overBudgetPages ?? 0;
      const fromMessage = n === 0 && /to process: it is unusually large or deeply nested/.test(msg(i));
      if (n === 0 && !fromMessage) return null;
      return {
        rule: 'pageOverBudget',
        cause: fromMessage
          ? `A page could not be processed: ${msg(i)}.`
          : `${plural(n, 'page')} took longer than the page processing limit to parse and extract and failed${firstAt(i.evidence, 'overBudget')}: they are unusually large or deeply nested.`,
        actions: [
          'Open the page and check that the Agent points at the pages you meant (startUrl, next and follow selectors).',
          'If such pages are expected, ask the operator to raise ENGINE_PAGE_CPU_SECONDS.',
        ],
      };
    },
  },
  {
    name: 'serverErrors',
    diagnose: (i) => {
      const n = count(i.evidence?.responsesByClass, '5xx');
      if (n === 0) return null;
      return {
        rule: 'serverErrors',
        cause: `${n} of ${plural(i.evidence!.requests, 'page request')} answered a 5xx server error after retries: the site was failing.`,
        actions: ['Try again later; start the Agent with isWaitOnFailure: true to retry a failed Run automatically.'],
      };
    },
  },
  {
    // Before selectorMatchedNothing: an empty list on a page full of scripts is most likely built by JavaScript.
    name: 'listNeedsJavaScript',
    diagnose: (i) => {
      const e = i.evidence;
      const scripted = e?.scriptedEmptyListPages ?? 0;
      if (!e || scripted === 0 || (e.renderedPages ?? 0) > 0) return null;
      const sel = i.definition?.listSelector ?? '';
      return {
        rule: 'listNeedsJavaScript',
        cause:
          `The list selector '${sel}' matched nothing on ${scripted} of ${plural(e.listPages, 'list page')}${firstAt(e, 'emptyList')}, ` +
          'and those pages carry scripts: the list is probably built by JavaScript in the browser, which an HTTP fetch does not run.',
        actions: [
          `Set render: "browser" (or "auto") in the Agent definition with PUT /api/v1/agent/${i.agentId}, optionally with waitFor: '${sel}'.`,
        ],
      };
    },
  },
  {
    name: 'selectorMatchedNothing',
    diagnose: (i) => {
      const e = i.evidence;
      if (!e || e.emptyListPages === 0) return null;
      const ok = count(e.responsesByClass, '2xx');
      const sel = i.definition?.listSelector ?? '';
      const all = e.emptyListPages === e.listPages;
      return {
        rule: 'selectorMatchedNothing',
        cause:
          `The list selector '${sel}' matched nothing on ${e.emptyListPages} of ${plural(e.listPages, 'list page')}${firstAt(e, 'emptyList')}` +
          (ok > 0
            ? `, although those pages answered 200: ${all ? 'the page layout has probably changed' : 'some pages have a different layout or are empty'}.`
            : '.'),
        actions: [
          `Open ${e.firstUrls.emptyList ?? 'the page'} and check the list selector \`${sel}\` in the Agent definition; update it with PUT /api/v1/agent/${i.agentId}.`,
          'Or start an Agent Builder session (POST /api/v1/agent-builder/start) on the page to propose a new definition.',
        ],
      };
    },
  },
  {
    name: 'requiredFieldsMissing',
    diagnose: (i) => {
      const e = i.evidence;
      if (!e || e.requiredMissing === 0) return null;
      const byField = Object.entries(e.requiredMissingByField).sort((a, b) => b[1] - a[1]);
      const selectorOf = (name: string) => i.definition?.fields.find((f) => f.name === name)?.selector;
      return {
        rule: 'requiredFieldsMissing',
        cause: `${e.requiredMissing} of ${plural(e.listMatches, 'record')} were dropped because a required field was empty: ${byField.map(([f, n]) => `'${f}' in ${n}`).join(', ')}${firstAt(e, 'requiredMissing')}.`,
        actions: [
          ...byField.slice(0, 3).map(([f]) => {
            const sel = selectorOf(f);
            return sel
              ? `Check the selector \`${sel}\` of field '${f}' against the page.`
              : `Check which selector produces '${f}' (a required export column).`;
          }),
          'If the value is legitimately absent on some items, make the field not required.',
        ],
      };
    },
  },
  {
    name: 'emptyFields',
    diagnose: (i) => {
      const e = i.evidence;
      if (!e || e.emptyRecords === 0 || e.emptyRecords < i.stats.dataCount) return null;
      const sels = (i.definition?.fields ?? []).filter((f) => f.selector).map((f) => `\`${f.selector}\``);
      return {
        rule: 'emptyFields',
        cause: `Every field was empty in all ${plural(e.emptyRecords, 'record')}: the list selector matched, the field selectors did not.`,
        actions: [
          `Check the field selectors${sels.length ? ` (${sels.join(', ')})` : ''}: they are relative to each list item \`${i.definition?.listSelector ?? ''}\`.`,
        ],
      };
    },
  },
  {
    name: 'paginationStoppedEarly',
    diagnose: (i) => {
      const e = i.evidence;
      if (!e || e.paginationStoppedEarly === 0) return null;
      return {
        rule: 'paginationStoppedEarly',
        cause: `Pagination stopped early on ${plural(e.paginationStoppedEarly, 'input')}: a next page could not be fetched or led back to a page already visited${firstAt(e, 'pagination')}.`,
        actions: [
          `Check the next-page selector${i.definition?.nextSelector ? ` \`${i.definition.nextSelector}\`` : ''} in the Agent definition and open the next page it points to.`,
        ],
      };
    },
  },
  {
    name: 'recordDrop',
    diagnose: (i) => {
      // Only Runs that ended normally: a failed or stopped Run is explained by its own rule.
      if (i.recentRecordCounts.length < RECORD_DROP_MIN_HISTORY || (i.status !== S.Completed && i.status !== S.Success))
        return null;
      const m = median(i.recentRecordCounts);
      if (m <= 0 || i.stats.dataCount >= m * RECORD_DROP_RATIO) return null;
      const pct = Math.round((1 - i.stats.dataCount / m) * 100);
      return {
        rule: 'recordDrop',
        cause: `This Run extracted ${plural(i.stats.dataCount, 'record')}, ${pct}% below this Agent's median of ${m} over its last ${i.recentRecordCounts.length} successful Runs.`,
        actions: [
          `Compare this Run's log (GET /api/v1/agent/${i.agentId}/run/${i.runId}/files) with an earlier Run's: look for pages with fewer list matches.`,
          'Check whether the site now shows fewer items or paginates differently (next selector, maxPages).',
        ],
      };
    },
  },
  {
    name: 'targetRefused',
    diagnose: (i) =>
      /target resolves to a private address/.test(msg(i))
        ? {
            rule: 'targetRefused',
            cause: `The start page resolves to a private network address and the server-side request forgery guard refused it: ${msg(i)}`,
            actions: [
              'Use a public URL; for an intranet deployment the operator can set ENGINE_ALLOW_PRIVATE_TARGETS=true.',
            ],
          }
        : null,
  },
  {
    name: 'invalidDefinition',
    diagnose: (i) =>
      /definition is invalid|Agent or its definition no longer exists/.test(msg(i))
        ? {
            rule: 'invalidDefinition',
            cause: `The Agent definition could not be executed: ${msg(i)}`,
            actions: [
              `Fix the definition with PUT /api/v1/agent/${i.agentId} (GET /api/v1/agent/${i.agentId} shows its validationStatus).`,
            ],
          }
        : null,
  },
];

/** Applies every rule; a failed Run that no rule explains still gets its message and the run log as a lead. */
export function diagnose(input: DiagnosisInput): {
  possibleCauses: string[];
  suggestedActions: string[];
  findings: Finding[];
} {
  const findings = DIAGNOSIS_RULES.map((r) => r.diagnose(input)).filter((f): f is Finding => f !== null);
  if (findings.length === 0 && (isFailed(input) || input.status === S.Completed)) {
    findings.push({
      rule: 'unexplained',
      cause: input.errorMessage
        ? `The Run ended with: ${input.errorMessage}`
        : `The Run ended with ${plural(input.stats.errorCount, 'error')} (failed pages or dropped records).`,
      actions: [
        `Read the run log (GET /api/v1/agent/${input.agentId}/run/${input.runId}/files, file run.log) for the failing pages.`,
      ],
    });
  }
  return {
    possibleCauses: findings.map((f) => f.cause),
    suggestedActions: [...new Set(findings.flatMap((f) => f.actions))],
    findings,
  };
}

function safeHost(url: string): string | null {
  try {
    return new URL(url).hostname || null;
  } catch {
    return null;
  }
}
