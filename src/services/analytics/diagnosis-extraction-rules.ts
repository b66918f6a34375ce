// Diagnosis rules about what the pages gave: server errors, lists that need JavaScript, selectors that
// matched nothing, missing or empty fields, pagination, record drops, refused targets and invalid
// definitions. The rules about how the Run itself ended are in diagnosis-rules.ts.
import { RunFailureCode } from '../runs/run-errors.js';
import {
  count,
  firstAt,
  msg,
  plural,
  S,
  median,
  RECORD_DROP_MIN_HISTORY,
  RECORD_DROP_RATIO,
  type DiagnosisRule,
} from './diagnosis-input.js';

export const EXTRACTION_RULES: readonly DiagnosisRule[] = [
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
      i.errorCode === RunFailureCode.TargetRefused
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
      i.errorCode === RunFailureCode.DefinitionInvalid || i.errorCode === RunFailureCode.AgentGone
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
