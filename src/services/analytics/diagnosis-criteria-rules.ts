// Diagnosis rules about what a Run was measured against and what it kept to show: a missed
// successCriteria (decided on the SUCCESS_CRITERIA_MISSED code and its parameters), and the pages kept
// as snapshots, named among the evidence so the user can download the page the engine saw.
import { RunFailureCode } from '../runs/run-errors.js';
import { param, plural, type DiagnosisInput, type DiagnosisRule } from './diagnosis-input.js';

const REASONS = {
  emptyList: 'the list matched nothing',
  requiredMissing: 'every record missed a required field',
} as const;

const filesUrl = (i: DiagnosisInput) => `GET /api/v1/agent/${i.agentId}/run/${i.runId}/files`;

export const CRITERIA_RULES: readonly DiagnosisRule[] = [
  {
    name: 'successCriteriaMissed',
    diagnose: (i) => {
      if (i.errorCode !== RunFailureCode.SuccessCriteriaMissed) return null;
      const criterion = String(param(i, 'criterion'));
      const more = Number(param(i, 'missed') ?? 1) > 1 ? ` (and ${Number(param(i, 'missed')) - 1} more)` : '';
      return {
        rule: 'successCriteriaMissed',
        cause: `The Run missed its success criterion ${criterion}${more}: expected ${param(i, 'expected')}, got ${param(i, 'actual')}.`,
        actions: [
          'Check the other findings for why the site gave less than usual (a redesign, blocking, failing pages).',
          `If the site really has less now, change successCriteria in the Agent definition with PUT /api/v1/agent/${i.agentId}.`,
        ],
      };
    },
  },
  {
    name: 'pageSnapshots',
    diagnose: (i) => {
      const kept = i.evidence?.snapshots ?? [];
      if (kept.length === 0) return null;
      const pages = kept
        .map((s) => `${s.html}${s.png ? ` and ${s.png}` : ''} (${s.url}: ${REASONS[s.reason]})`)
        .join('; ');
      return {
        rule: 'pageSnapshots',
        cause: `The engine kept ${plural(kept.length, 'page')} as it received ${kept.length === 1 ? 'it' : 'them'}: ${pages}.`,
        actions: [
          `Download the snapshot files (${filesUrl(i)}, then .../file/{fileId}/download) to see whether the site was redesigned or answered a block page, and update the list and field selectors to match.`,
        ],
      };
    },
  },
];
