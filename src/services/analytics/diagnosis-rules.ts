// Diagnoses of a Run: one table of rules over its status, failure code, the evidence the engine
// recorded and the Agent's own history. Each rule that applies names its evidence with numbers and
// suggests actions the user can take in this product. Pure: no I/O, no clock.
import { RUN_LOG_NAME } from '../runs/run-keys.js';
import { RunFailureCode as C } from '../runs/run-errors.js';
import { CRITERIA_RULES } from './diagnosis-criteria-rules.js';
import { EXTRACTION_RULES } from './diagnosis-extraction-rules.js';
import {
  count,
  firstAt,
  isFailed,
  isStopped,
  msg,
  param,
  plural,
  proxyAction,
  restart,
  S,
  safeHost,
  type DiagnosisInput,
  type DiagnosisRule,
  type Finding,
} from './diagnosis-input.js';

export { median, RECORD_DROP_MIN_HISTORY, RECORD_DROP_RATIO } from './diagnosis-input.js';
export type { DiagnosisInput, DiagnosisRule, Finding } from './diagnosis-input.js';

/** The start page could not be reached (the `kind` parameter says how). */
const unreachable = (i: DiagnosisInput) => i.errorCode === C.StartPageUnreachable;

/** Every rule, in the order their findings are listed: how the Run ended, then what its pages gave. */
export const DIAGNOSIS_RULES: readonly DiagnosisRule[] = [
  {
    name: 'storageFailure',
    diagnose: (i) =>
      isFailed(i) && (i.errorCode === C.StorageFull || i.errorCode === C.StorageUnavailable)
        ? {
            rule: 'storageFailure',
            cause: msg(i),
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
      isStopped(i) && i.errorCode === C.KilledByUser
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
      if (!isStopped(i) || i.errorCode === C.KilledByUser) return null;
      const lost =
        param(i, 'when') === 'workerLost' ? ' The worker executing it was lost before it finished stopping.' : '';
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
      !isStopped(i) && i.errorCode === C.WorkerLost
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
      if (isStopped(i) || i.errorCode !== C.RunTimeout) return null;
      const seconds = param(i, 'seconds');
      return {
        rule: 'runTimeout',
        cause: `The Run reached its time limit of ${seconds} s after ${plural(i.stats.pageCount, 'page')} and ${plural(i.stats.dataCount, 'record')}.`,
        actions: [
          `Raise timeoutSeconds in the Agent definition (now ${seconds} s) with PUT /api/v1/agent/${i.agentId}.`,
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
      const fromMessage = !e && i.errorCode === C.Blocked;
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
      if (n === 0 && !(unreachable(i) && param(i, 'kind') === 'dns')) return null;
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
      const fromMessage = !e && unreachable(i) && ['refused', 'reset', 'tls'].includes(String(param(i, 'kind')));
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
      const fromMessage = n === 0 && i.errorCode === C.PageCpuBudget;
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
    name: 'proxyFailed',
    diagnose: (i) =>
      i.errorCode === C.ProxyFailed
        ? {
            rule: 'proxyFailed',
            cause: `The Run's proxy failed before the site answered: ${msg(i)}.`,
            actions: [
              `Check the proxies of the proxy pool this Run used${i.run.proxyPoolId === null ? '' : ` (proxy pool ${i.run.proxyPoolId})`}: address, port and credentials; or start the Run with another pool.`,
            ],
          }
        : null,
  },
  {
    name: 'responseTooLarge',
    diagnose: (i) =>
      i.errorCode === C.ResponseTooLarge
        ? {
            rule: 'responseTooLarge',
            cause: `The start page was larger than the service accepts: ${msg(i)}.`,
            actions: [
              "Check that the Agent's startUrl points at an HTML page, not a file download.",
              'Pages larger than 16 MB are not processed; a listing that big can usually be paged (next selector).',
            ],
          }
        : null,
  },
  ...EXTRACTION_RULES,
  ...CRITERIA_RULES,
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
        `Read the run log (GET /api/v1/agent/${input.agentId}/run/${input.runId}/files, file ${RUN_LOG_NAME}) for the failing pages.`,
      ],
    });
  }
  return {
    possibleCauses: findings.map((f) => f.cause),
    suggestedActions: [...new Set(findings.flatMap((f) => f.actions))],
    findings,
  };
}
