// The evidence a Run keeps for diagnoses: what runExtraction records against the fixture site, and
// its bounds (distinct keys, one first URL per kind, URL length, masked secrets).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExtraction } from '../../src/engine/crawler.js';
import { EvidenceCollector, MAX_KEYS, MAX_URL_LENGTH, qualityProblem } from '../../src/engine/evidence.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { failureText } from '../helpers/failure-text.js';

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(() => site.close());

const run = (definition: any, extra: Record<string, unknown> = {}) =>
  runExtraction({
    definition,
    inputRows: [],
    allowPrivateTargets: true,
    retryBaseDelayMs: 1,
    requestTimeoutMs: 2000,
    ...extra,
  });

describe('runExtraction evidence', () => {
  it('counts answers by class and code, failed detail pages with their first URL', async () => {
    const r = await run({
      startUrl: `${site.url}/links`,
      list: { selector: 'div.product', fields: [{ name: 'title', selector: '.title' }] },
      follow: { selector: 'a.title', fields: [{ name: 'name', selector: 'h1.name' }] },
    });
    expect(r.evidence).toEqual({
      requests: 3,
      responsesByClass: { '2xx': 2, '4xx': 1 },
      responsesByCode: { '200': 2, '403': 1 },
      networkErrors: {},
      listPages: 1,
      emptyListPages: 0,
      listMatches: 3,
      requiredMissing: 0,
      requiredMissingByField: {},
      emptyRecords: 0,
      paginationStoppedEarly: 0,
      overBudgetPages: 0,
      failedPages: 1,
      // The two pages parsed (the list and the one detail page that answered), both by the fast path.
      parser: { fast: 2, standard: 0 },
      firstUrls: { http403: `${site.url}/blocked` },
    });
    expect(r.warning).toBeUndefined();
  });

  it('a list selector matching nothing on every page: a warning; network errors by kind', async () => {
    const r = await run({
      startUrl: `${site.url}/empty-list`,
      list: { selector: 'div.product', fields: [{ name: 'x' }] },
    });
    expect(r.evidence).toMatchObject({
      requests: 1,
      listPages: 1,
      emptyListPages: 1,
      firstUrls: { emptyList: `${site.url}/empty-list` },
    });
    expect(r.warning?.code).toBe('LIST_MATCHED_NOTHING');
    expect(failureText(r.warning)).toBe(
      "The list selector 'div.product' matched nothing on the 1 page fetched: no records were extracted (has the page layout changed?).",
    );
    const refused = await run(
      { startUrl: 'http://127.0.0.1:1/', list: { selector: 'li', fields: [{ name: 'x' }] } },
      { maxRetries: 0 },
    );
    expect(refused.evidence).toMatchObject({
      requests: 1,
      networkErrors: { refused: 1 },
      firstUrls: { refused: 'http://127.0.0.1:1/' },
    });
    expect(refused.warning).toBeUndefined();
  });

  it('every kept record empty: a warning', async () => {
    const r = await run({
      startUrl: `${site.url}/catalog?page=3`,
      list: { selector: 'div.product', fields: [{ name: 'x', selector: 'span.nothing' }] },
    });
    expect(r.stats.dataCount).toBe(10);
    expect(r.evidence.emptyRecords).toBe(10);
    expect(r.warning?.code).toBe('FIELDS_EMPTY');
    expect(failureText(r.warning)).toBe(
      'Every field was empty in all 10 records: the field selectors matched nothing inside the list items.',
    );
  });
});

describe('EvidenceCollector bounds', () => {
  it('keeps at most MAX_KEYS codes and fields (the rest under other), one first URL per kind, cut and masked', () => {
    const c = new EvidenceCollector((t) => t.replaceAll('s3cret', '***'));
    for (let code = 400; code < 460; code++) c.answered(code, `https://x/${code}?k=s3cret`);
    for (let i = 0; i < 50; i++) c.requiredMissing(`field${i}`, 'https://x/');
    c.answered(404, `https://x/${'a'.repeat(1000)}`);
    c.networkError('dns', `https://y/${'b'.repeat(1000)}`);
    const e = c.evidence;
    expect(Object.keys(e.responsesByCode)).toHaveLength(MAX_KEYS + 1);
    expect(e.responsesByCode.other).toBe(40);
    expect(e.responsesByCode['404']).toBe(2);
    expect(Object.keys(e.requiredMissingByField)).toHaveLength(MAX_KEYS + 1);
    expect(e.firstUrls.http400).toBe('https://x/400?k=***');
    expect(e.firstUrls.http404).toBe('https://x/404?k=***');
    expect(e.firstUrls.dns).toHaveLength(MAX_URL_LENGTH);
    expect(JSON.stringify(e)).not.toContain('s3cret');
  });

  it('qualityProblem: nothing to say when records were kept', () => {
    const c = new EvidenceCollector((t) => t);
    c.listPage(10, 'https://x/');
    expect(qualityProblem(c.evidence, 'li', 10)).toBeUndefined();
  });
});
