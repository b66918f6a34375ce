// Each diagnosis rule: when it applies, the numbers its cause quotes, and its actions.
import { describe, expect, it } from 'vitest';
import { emptyEvidence, type RunEvidence } from '../../src/engine/evidence.js';
import {
  diagnose,
  DIAGNOSIS_RULES,
  median,
  type DiagnosisInput,
} from '../../src/services/analytics/diagnosis-rules.js';
import {
  runFailureMessage,
  RunFailureCode as C,
  stoppedBy,
  type RunFailure,
} from '../../src/services/runs/run-errors.js';

function input(over: Partial<DiagnosisInput> = {}, ev: Partial<RunEvidence> | null = {}): DiagnosisInput {
  return {
    agentId: 7,
    runId: 70,
    status: 6,
    errorMessage: null,
    errorCode: null,
    errorParams: null,
    stats: { dataCount: 0, pageCount: 0, errorCount: 0, inputCount: 1, exportCount: 0 },
    evidence: ev === null ? null : { ...emptyEvidence(), ...ev },
    run: { proxyPoolId: null, parallelMaxConcurrency: 4, timeoutSeconds: null },
    definition: {
      startUrl: 'https://shop.example.com/list',
      listSelector: 'div.product',
      nextSelector: 'a.next',
      fields: [
        { name: 'title', selector: 'a.title' },
        { name: 'price', selector: 'span.price', required: true },
      ],
      timeoutSeconds: null,
    },
    recentRecordCounts: [],
    ...over,
  };
}

/** A Run that ended with `f`: its code, parameters and the message built from them. */
function ended(f: RunFailure, over: Partial<DiagnosisInput> = {}, ev: Partial<RunEvidence> | null = {}) {
  return input({ errorCode: f.code, errorParams: f.params, errorMessage: runFailureMessage(f), ...over }, ev);
}

const rule = (name: string) => DIAGNOSIS_RULES.find((r) => r.name === name)!;
const rulesOf = (i: DiagnosisInput) => diagnose(i).findings.map((f) => f.rule);

describe('the rule table', () => {
  it('has one rule per name', () => {
    const names = DIAGNOSIS_RULES.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('a clean Success has no causes and no actions', () => {
    expect(
      diagnose(
        input(
          { status: 10, stats: { dataCount: 30, pageCount: 3, errorCount: 0, inputCount: 1, exportCount: 30 } },
          { requests: 3, responsesByClass: { '2xx': 3 }, listPages: 3, listMatches: 30 },
        ),
      ),
    ).toEqual({
      possibleCauses: [],
      suggestedActions: [],
      findings: [],
    });
  });

  it('a failure no rule explains still quotes its message and points to the run log', () => {
    const d = diagnose(input({ errorMessage: 'something odd' }));
    expect(d.findings).toEqual([
      {
        rule: 'unexplained',
        cause: 'The Run ended with: something odd',
        actions: ['Read the run log (GET /api/v1/agent/7/run/70/files, file run.log) for the failing pages.'],
      },
    ]);
  });

  it('actions are not repeated when two rules suggest the same', () => {
    const d = diagnose(input({}, { requests: 10, responsesByCode: { '403': 4 }, networkErrors: { reset: 2 } }));
    expect(new Set(d.suggestedActions).size).toBe(d.suggestedActions.length);
  });
});

describe('blocked (403/429 share)', () => {
  it('counts the 403 and 429 answers out of all requests, with the first URL, and suggests a proxy pool and lower concurrency', () => {
    const f = rule('blocked').diagnose(
      input(
        {},
        {
          requests: 40,
          responsesByCode: { '200': 1, '403': 37, '429': 2 },
          firstUrls: { http403: 'https://shop.example.com/p/2', http429: 'https://shop.example.com/p/9' },
        },
      ),
    )!;
    expect(f.cause).toBe(
      'The target site blocked the Run: of 40 page requests, 37 answered 403 Forbidden (first: https://shop.example.com/p/2) and 2 answered 429 Too Many Requests (first: https://shop.example.com/p/9).',
    );
    expect(f.actions).toEqual([
      'Assign a proxy pool to the Agent (PUT /api/v1/agent/7 with proxyPoolId) or start the Run with one, so requests come from other addresses.',
      'Lower parallelMaxConcurrency (now 4) when starting or scheduling the Agent, so the site sees fewer simultaneous requests.',
    ]);
  });

  it('with a proxy pool already in use, suggests another one', () => {
    const f = rule('blocked').diagnose(
      input(
        { run: { proxyPoolId: 3, parallelMaxConcurrency: 1, timeoutSeconds: null } },
        { requests: 1, responsesByCode: { '403': 1 } },
      ),
    )!;
    expect(f.actions).toEqual(['Try another proxy pool: the one this Run used (proxy pool 3) was refused too.']);
  });

  it('without evidence (older Runs), decides on the code BLOCKED', () => {
    const blocked = { code: C.Blocked, params: { url: 'https://x/', status: 403, attempts: 1 } };
    expect(rule('blocked').diagnose(ended(blocked, {}, null))?.cause).toBe(
      `The target site refused the Run's requests: ${runFailureMessage(blocked)}`,
    );
    // The same words without the code decide nothing.
    expect(rule('blocked').diagnose(input({ errorMessage: runFailureMessage(blocked) }, null))).toBeNull();
  });

  it('does not apply without 403/429', () => {
    expect(rule('blocked').diagnose(input({}, { requests: 3, responsesByCode: { '200': 3 } }))).toBeNull();
  });
});

describe('DNS and connection failures, timeouts, server errors', () => {
  it('dnsFailure names the count and the host of the startUrl', () => {
    const f = rule('dnsFailure').diagnose(
      input({}, { requests: 2, networkErrors: { dns: 2 }, firstUrls: { dns: 'https://shop.example.com/list' } }),
    )!;
    expect(f.cause).toBe(
      '2 of 2 page requests failed because the host name could not be resolved (DNS) (first: https://shop.example.com/list).',
    );
    expect(f.actions[0]).toBe(
      "Check the host name 'shop.example.com' in the Agent's startUrl for typos (PUT /api/v1/agent/7); the site may have moved or its domain expired.",
    );
    expect(rule('dnsFailure').diagnose(input({}, { requests: 2 }))).toBeNull();
    const dns = {
      code: C.StartPageUnreachable,
      params: { url: 'https://x/', kind: 'dns', reason: 'could not resolve host x' },
    };
    expect(rule('dnsFailure').diagnose(ended(dns, {}, null))?.cause).toBe(`${runFailureMessage(dns)}.`);
  });

  it('connectionFailure lists refused, reset and TLS counts', () => {
    const f = rule('connectionFailure').diagnose(
      input({}, { requests: 5, networkErrors: { refused: 3, tls: 1 }, firstUrls: { refused: 'http://a/' } }),
    )!;
    expect(f.cause).toBe(
      '3 connection refused (first: http://a/), 1 TLS error of 5 page requests: the site could not be reached.',
    );
    expect(f.actions[0]).toMatch(/right scheme and port/);
    expect(rule('connectionFailure').diagnose(input({}, { requests: 5, networkErrors: { timeout: 1 } }))).toBeNull();
    const refused = {
      code: C.StartPageUnreachable,
      params: { url: 'https://x/', kind: 'refused', reason: 'connection refused' },
    };
    expect(rulesOf(ended(refused, {}, null))).toEqual(['connectionFailure']);
  });

  it('proxyFailed and responseTooLarge decide on their codes', () => {
    const proxy = { code: C.ProxyFailed, params: { url: 'https://x/', reason: 'connection refused by 10.0.0.2:3128' } };
    expect(
      rulesOf(ended(proxy, { run: { proxyPoolId: 3, parallelMaxConcurrency: 4, timeoutSeconds: null } }, null)),
    ).toEqual(['proxyFailed']);
    const large = {
      code: C.ResponseTooLarge,
      params: { url: 'https://x/', reason: 'the response is larger than 50 MB' },
    };
    expect(rulesOf(ended(large, {}, null))).toEqual(['responseTooLarge']);
  });

  it('requestTimeouts counts timed-out requests and suggests lower concurrency', () => {
    const f = rule('requestTimeouts').diagnose(input({}, { requests: 8, networkErrors: { timeout: 6 } }))!;
    expect(f.cause).toBe('6 of 8 page requests timed out without an answer.');
    expect(f.actions).toEqual([
      'Lower parallelMaxConcurrency (now 4) so the site is not overloaded.',
      'If the site is just slow, ask the operator to raise ENGINE_REQUEST_TIMEOUT_MS.',
    ]);
  });

  it('serverErrors counts 5xx answers', () => {
    expect(rule('serverErrors').diagnose(input({}, { requests: 4, responsesByClass: { '5xx': 4 } }))?.cause).toBe(
      '4 of 4 page requests answered a 5xx server error after retries: the site was failing.',
    );
    expect(rule('serverErrors').diagnose(input({}, { requests: 4, responsesByClass: { '2xx': 4 } }))).toBeNull();
  });
});

describe('what the pages held', () => {
  it('selectorMatchedNothing: on 200 pages the layout changed; the selector is quoted', () => {
    const f = rule('selectorMatchedNothing').diagnose(
      input(
        { status: 9 },
        {
          requests: 3,
          responsesByClass: { '2xx': 3 },
          listPages: 3,
          emptyListPages: 3,
          firstUrls: { emptyList: 'https://shop.example.com/list' },
        },
      ),
    )!;
    expect(f.cause).toBe(
      "The list selector 'div.product' matched nothing on 3 of 3 list pages (first: https://shop.example.com/list), although those pages answered 200: the page layout has probably changed.",
    );
    expect(f.actions[0]).toBe(
      'Open https://shop.example.com/list and check the list selector `div.product` in the Agent definition; update it with PUT /api/v1/agent/7.',
    );
    expect(
      rule('selectorMatchedNothing').diagnose(
        input({}, { listPages: 3, emptyListPages: 1, responsesByClass: { '2xx': 3 } }),
      )?.cause,
    ).toMatch(/1 of 3 list pages.*some pages have a different layout or are empty/);
    expect(rule('selectorMatchedNothing').diagnose(input({}, { listPages: 3 }))).toBeNull();
  });

  it('requiredFieldsMissing: drops per field and the selector to check', () => {
    const f = rule('requiredFieldsMissing').diagnose(
      input({ status: 9 }, { listMatches: 30, requiredMissing: 30, requiredMissingByField: { price: 30 } }),
    )!;
    expect(f.cause).toBe("30 of 30 records were dropped because a required field was empty: 'price' in 30.");
    expect(f.actions[0]).toBe("Check the selector `span.price` of field 'price' against the page.");
    expect(rule('requiredFieldsMissing').diagnose(input({}, { listMatches: 30 }))).toBeNull();
  });

  it('emptyFields: every kept record empty', () => {
    const stats = { dataCount: 5, pageCount: 1, errorCount: 0, inputCount: 1, exportCount: 5 };
    expect(rule('emptyFields').diagnose(input({ status: 9, stats }, { emptyRecords: 5 }))?.cause).toBe(
      'Every field was empty in all 5 records: the list selector matched, the field selectors did not.',
    );
    expect(rule('emptyFields').diagnose(input({ status: 9, stats }, { emptyRecords: 2 }))).toBeNull();
  });

  it('paginationStoppedEarly: quotes the next selector', () => {
    const f = rule('paginationStoppedEarly').diagnose(
      input(
        { status: 9 },
        { paginationStoppedEarly: 2, firstUrls: { pagination: 'https://shop.example.com/list?p=4' } },
      ),
    )!;
    expect(f.cause).toBe(
      'Pagination stopped early on 2 inputs: a next page could not be fetched or led back to a page already visited (first: https://shop.example.com/list?p=4).',
    );
    expect(f.actions).toEqual([
      'Check the next-page selector `a.next` in the Agent definition and open the next page it points to.',
    ]);
  });

  it('pageOverBudget: counts the pages from the evidence, or quotes the message of a Run without it', () => {
    const f = rule('pageOverBudget').diagnose(
      input({ status: 9 }, { overBudgetPages: 2, firstUrls: { overBudget: 'https://shop.example.com/huge' } }),
    )!;
    expect(f.cause).toBe(
      '2 pages took longer than the page processing limit to parse and extract and failed (first: https://shop.example.com/huge): they are unusually large or deeply nested.',
    );
    expect(f.actions[1]).toBe('If such pages are expected, ask the operator to raise ENGINE_PAGE_CPU_SECONDS.');
    const overBudget = {
      code: C.PageCpuBudget,
      params: { url: 'https://x/', reason: 'the page took longer than 5 s to process' },
    };
    expect(rule('pageOverBudget').diagnose(ended(overBudget, {}, null))?.cause).toBe(
      `A page could not be processed: ${runFailureMessage(overBudget)}.`,
    );
    expect(rule('pageOverBudget').diagnose(input({ status: 9 }, { overBudgetPages: 0 }))).toBeNull();
  });
});

describe('history: a drop in records', () => {
  const stats = (n: number) => ({ dataCount: n, pageCount: 3, errorCount: 0, inputCount: 1, exportCount: n });
  it('median of the recent successful Runs', () => {
    expect(median([])).toBe(0);
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('reports a Run far below the recent median, with the percentage', () => {
    const f = rule('recordDrop').diagnose(
      input({ status: 10, stats: stats(3), recentRecordCounts: [30, 31, 29, 30] }),
    )!;
    expect(f.cause).toBe(
      "This Run extracted 3 records, 90% below this Agent's median of 30 over its last 4 successful Runs.",
    );
  });

  it('stays quiet with too little history, a normal count, or a Run that did not end normally', () => {
    expect(
      rule('recordDrop').diagnose(input({ status: 10, stats: stats(3), recentRecordCounts: [30, 30] })),
    ).toBeNull();
    expect(
      rule('recordDrop').diagnose(input({ status: 10, stats: stats(20), recentRecordCounts: [30, 30, 30] })),
    ).toBeNull();
    expect(
      rule('recordDrop').diagnose(input({ status: 8, stats: stats(3), recentRecordCounts: [30, 30, 30] })),
    ).toBeNull();
    expect(
      rule('recordDrop').diagnose(input({ status: 6, stats: stats(0), recentRecordCounts: [30, 30, 30] })),
    ).toBeNull();
  });
});

describe('how the Run ended', () => {
  const s = { dataCount: 12, pageCount: 2, errorCount: 0, inputCount: 1, exportCount: 12 };
  const killed = { code: C.KilledByUser, params: {} };
  it('storageFailure: the storage cause of a failed Run, with what to do', () => {
    const full = { code: C.StorageFull, params: { kind: 'diskFull' } };
    const f = rule('storageFailure').diagnose(ended(full, { status: 6 }))!;
    expect(f.cause).toMatch(/^The Run's files could not be stored: the storage volume is full/);
    expect(f.actions[0]).toMatch(/health\/ready/);
    expect(rulesOf(ended(full, { status: 6 }))).toEqual(['storageFailure']);
    const unavailable = { code: C.StorageUnavailable, params: { kind: 'noSuchBucket' } };
    expect(rulesOf(ended(unavailable, { status: 6 }))).toEqual(['storageFailure']);
    expect(rule('storageFailure').diagnose(input({ status: 10, errorMessage: null }))).toBeNull();
  });

  it('stoppedByUser, and stopped while its worker was lost', () => {
    expect(rule('stoppedByUser').diagnose(ended(stoppedBy('exported'), { status: 8, stats: s }))?.cause).toBe(
      'Stopped by a user after 2 pages and 12 records; 12 records extracted until then were exported.',
    );
    expect(rule('stoppedByUser').diagnose(ended(stoppedBy('workerLost'), { status: 8 }))?.cause).toMatch(
      /The worker executing it was lost before it finished stopping\.$/,
    );
    expect(rule('stoppedByUser').diagnose(ended(killed, { status: 8 }))).toBeNull();
  });

  it('killedByUser', () => {
    const f = rule('killedByUser').diagnose(ended(killed, { status: 8, stats: s }))!;
    expect(f.cause).toBe(
      'Killed by a user: the run process was terminated at once after 2 pages and 12 records; records not yet exported were lost.',
    );
    expect(rule('killedByUser').diagnose(ended(killed, { status: 6 }))).toBeNull();
  });

  it('workerLost', () => {
    const f = rule('workerLost').diagnose(
      ended({ code: C.WorkerLost, params: { reason: 'heartbeat' } }, { stats: s }),
    )!;
    expect(f.cause).toMatch(
      /^The worker process executing the Run stopped .* after 2 pages and 12 records; the Run did not finish\.$/,
    );
    expect(f.actions[0]).toMatch(/isWaitOnFailure: true/);
  });

  it('runTimeout quotes the limit', () => {
    const f = rule('runTimeout').diagnose(ended({ code: C.RunTimeout, params: { seconds: 30 } }, { stats: s }))!;
    expect(f.cause).toBe('The Run reached its time limit of 30 s after 2 pages and 12 records.');
    expect(f.actions[0]).toBe('Raise timeoutSeconds in the Agent definition (now 30 s) with PUT /api/v1/agent/7.');
    // The run process terminated by the worker's deadline is the same code.
    const terminated = ended({ code: C.RunTimeout, params: { seconds: 30, terminated: 1 } }, { stats: s });
    expect(rule('runTimeout').diagnose(terminated)?.cause).toBe(f.cause);
    expect(rule('runTimeout').diagnose(input({ errorMessage: 'run timed out after 30 s' }))).toBeNull();
  });

  it('targetRefused and invalidDefinition', () => {
    expect(
      rule('targetRefused').diagnose(
        ended({
          code: C.TargetRefused,
          params: {
            url: 'http://10.0.0.1/',
            reason: 'refused to fetch http://10.0.0.1/: target resolves to a private address',
          },
        }),
      )?.actions[0],
    ).toMatch(/ENGINE_ALLOW_PRIVATE_TARGETS/);
    expect(
      rule('invalidDefinition').diagnose(
        ended({ code: C.DefinitionInvalid, params: { problems: 'list.selector is empty' } }),
      )?.cause,
    ).toBe('The Agent definition could not be executed: definition is invalid: list.selector is empty');
    expect(rulesOf(ended({ code: C.AgentGone, params: {} }))).toEqual(['invalidDefinition']);
  });

  it('rulesOf combines: a blocked, failed Run with pagination cut short', () => {
    expect(
      rulesOf(input({}, { requests: 3, responsesByCode: { '200': 1, '403': 2 }, paginationStoppedEarly: 1 })),
    ).toEqual(['blocked', 'paginationStoppedEarly']);
  });
});
