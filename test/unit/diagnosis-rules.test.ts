// Each diagnosis rule: when it applies, the numbers its cause quotes, and its actions.
import { describe, expect, it } from 'vitest';
import { emptyEvidence, type RunEvidence } from '../../src/engine/evidence.js';
import { describeStorageFailure, StorageFailureKind } from '../../src/storage/index.js';
import {
  diagnose,
  DIAGNOSIS_RULES,
  median,
  type DiagnosisInput,
} from '../../src/services/analytics/diagnosis-rules.js';

function input(over: Partial<DiagnosisInput> = {}, ev: Partial<RunEvidence> | null = {}): DiagnosisInput {
  return {
    agentId: 7,
    runId: 70,
    status: 6,
    errorMessage: null,
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

  it('without evidence (older Runs), reads the error message', () => {
    expect(
      rule('blocked').diagnose(
        input({ errorMessage: 'Start page https://x/ answered 403 Forbidden: the site blocked the request' }, null),
      )?.cause,
    ).toBe(
      "The target site refused the Run's requests: Start page https://x/ answered 403 Forbidden: the site blocked the request",
    );
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
    const message =
      'Start page https://x/ failed: the page took longer than 5 s to process: it is unusually large or deeply nested';
    expect(rule('pageOverBudget').diagnose(input({ errorMessage: message }, null))?.cause).toBe(
      `A page could not be processed: ${message}.`,
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
  it('creditsExhausted', () => {
    const f = rule('creditsExhausted').diagnose(input({ errorMessage: 'Insufficient credits: balance 0' }))!;
    expect(f.cause).toBe('The organization had no credits left for this Run: Insufficient credits: balance 0');
    expect(f.actions[0]).toMatch(/grant credits/);
  });

  it('storageFailure: the storage cause of a failed Run, with what to do', () => {
    const message = describeStorageFailure(StorageFailureKind.DiskFull).message;
    const f = rule('storageFailure').diagnose(input({ status: 6, errorMessage: message }))!;
    expect(f.cause).toMatch(/^The service could not store the Run's files: the storage volume is full/);
    expect(f.actions[0]).toMatch(/health\/ready/);
    expect(rulesOf(input({ status: 6, errorMessage: message }))).toEqual(['storageFailure']);
    expect(rule('storageFailure').diagnose(input({ status: 10, errorMessage: null }))).toBeNull();
  });

  it('stoppedByUser, and stopped while its worker was lost', () => {
    expect(
      rule('stoppedByUser').diagnose(
        input({ status: 8, stats: s, errorMessage: 'Stopped by user; the data extracted so far was exported.' }),
      )?.cause,
    ).toBe('Stopped by a user after 2 pages and 12 records; 12 records extracted until then were exported.');
    expect(
      rule('stoppedByUser').diagnose(
        input({
          status: 8,
          errorMessage: 'Stopped; the worker executing the Run was lost before it finished stopping.',
        }),
      )?.cause,
    ).toMatch(/The worker executing it was lost before it finished stopping\.$/);
    expect(rule('stoppedByUser').diagnose(input({ status: 8, errorMessage: 'Killed by user: ...' }))).toBeNull();
  });

  it('killedByUser', () => {
    const f = rule('killedByUser').diagnose(
      input({ status: 8, stats: s, errorMessage: 'Killed by user: the run process was terminated immediately' }),
    )!;
    expect(f.cause).toBe(
      'Killed by a user: the run process was terminated at once after 2 pages and 12 records; records not yet exported were lost.',
    );
    expect(rule('killedByUser').diagnose(input({ status: 6, errorMessage: 'Killed by user: x' }))).toBeNull();
  });

  it('workerLost', () => {
    const f = rule('workerLost').diagnose(
      input({
        stats: s,
        errorMessage: 'The worker executing this Run was lost (no heartbeat); the Run did not finish.',
      }),
    )!;
    expect(f.cause).toMatch(
      /^The worker process executing the Run stopped .* after 2 pages and 12 records; the Run did not finish\.$/,
    );
    expect(f.actions[0]).toMatch(/isWaitOnFailure: true/);
  });

  it('runTimeout quotes the limit', () => {
    const f = rule('runTimeout').diagnose(input({ stats: s, errorMessage: 'run timed out after 30 s' }))!;
    expect(f.cause).toBe('The Run reached its time limit of 30 s after 2 pages and 12 records.');
    expect(f.actions[0]).toBe('Raise timeoutSeconds in the Agent definition (now 30 s) with PUT /api/v1/agent/7.');
  });

  it('targetRefused and invalidDefinition', () => {
    expect(
      rule('targetRefused').diagnose(
        input({
          errorMessage: 'refused to fetch http://10.0.0.1/: target resolves to a private address (10.0.0.1); set ...',
        }),
      )?.actions[0],
    ).toMatch(/ENGINE_ALLOW_PRIVATE_TARGETS/);
    expect(
      rule('invalidDefinition').diagnose(input({ errorMessage: 'definition is invalid: list.selector is empty' }))
        ?.cause,
    ).toBe('The Agent definition could not be executed: definition is invalid: list.selector is empty');
  });

  it('rulesOf combines: a blocked, failed Run with pagination cut short', () => {
    expect(
      rulesOf(input({}, { requests: 3, responsesByCode: { '200': 1, '403': 2 }, paginationStoppedEarly: 1 })),
    ).toEqual(['blocked', 'paginationStoppedEarly']);
  });
});
