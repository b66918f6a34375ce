// The extraction language's keywords, each on real saved pages of the Builder's development set
// (bench/builder-real/pages), read the way a Run reads them (extractListPage / extractDetailPage).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FieldSpec } from '../../src/engine/definition-fields.js';
import { type AgentDefinition } from '../../src/engine/definition.js';
import { validateDefinition } from '../../src/engine/definition-validate.js';
import { extractDetailPage, extractListPage, type ListPlan } from '../../src/engine/page-extract.js';
import { parsePage } from '../../src/engine/parse.js';
import { descendantForm, selectXPath } from '../../src/engine/xpath.js';

const pagesDir = path.join(import.meta.dirname, '../../bench/builder-real/pages');
const page = (file: string, finalUrl = 'https://site.example/page') => ({
  finalUrl,
  body: fs.readFileSync(path.join(pagesDir, file)),
  contentType: 'text/html; charset=utf-8',
});
const detail = (file: string, fields: FieldSpec[]) => extractDetailPage(page(file), fields).record;
const list = (file: string, plan: ListPlan) => extractListPage(page(file, 'http://www.zzzcg.me/poslovi/'), plan);
const def = (fields: FieldSpec[], extra: Partial<AgentDefinition> = {}): AgentDefinition => ({
  startUrl: 'https://site.example/',
  list: { selector: 'li', fields },
  ...extra,
});

describe('the three values the Builder could not express', () => {
  it('a value after a label inside one element (dw.com: <strong>Author</strong> Julian Tompkin), by XPath and by ownText', () => {
    const record = detail('dw-article.html', [
      { name: 'author', xpath: "//li[strong='Author']/text()[normalize-space()][1]", transform: 'trim' },
      { name: 'author2', selector: 'ul.smallList li:nth-child(2)', attribute: 'ownText' },
      { name: 'date', xpath: "//li[strong='Date']", attribute: 'ownText', transform: { date: 'dd.MM.yyyy' } },
    ]);
    expect(record).toEqual({ author: 'Julian Tompkin', author2: 'Julian Tompkin', date: '2013-06-10T00:00:00.000Z' });
  });

  it('an author inside a byline (phys.org: "by Bob Yirka , Phys.org"), by regex', () => {
    const record = detail('phys-article.html', [
      { name: 'author', selector: '.article-byline', transform: [{ regex: 'by\\s+([^,]+?)\\s*,', group: 1 }] },
      { name: 'site', selector: '.article-byline', transform: [{ regex: ',\\s*(?P<site>\\S+)', group: 'site' }] },
    ]);
    expect(record).toEqual({ author: 'Bob Yirka', site: 'Phys.org' });
  });

  it('labelled values on a listing (zzzcg.me: the employer after the job link inside one dd)', () => {
    const result = list('poslovi-jobs.html', {
      list: {
        xpath: "//li[contains(concat(' ', normalize-space(@class), ' '), ' job ')]",
        fields: [
          { name: 'title', xpath: ".//dd[@class='title']//a", transform: 'trim' },
          { name: 'link', xpath: ".//dd[@class='title']//a/@href" },
          { name: 'employer', selector: 'dd.title', attribute: 'ownText' },
          { name: 'location', xpath: "normalize-space(.//dt[.='Lokacija']/following-sibling::dd[1])" },
        ],
      },
    });
    expect(result.items.length).toBe(35);
    expect(result.items[0].record).toEqual({
      title: 'NASTAVNIK/CA FIZIKE',
      link: 'http://www.zzzcg.me/poslovi/76072706/',
      employer: 'DAŠO PAVIČIĆ OŠ JU',
      location: 'HERCEG NOVI',
    });
  });
});

describe('keywords on real pages', () => {
  it('multiple: every match as an array, [] when nothing matches; required then means non-empty', () => {
    const record = detail('dw-article.html', [
      {
        name: 'subjects',
        xpath: "(//ul[@class='smallList'])[1]/li[strong='Related Subjects']/a",
        multiple: true,
        transform: 'trim',
      },
      { name: 'none', selector: '.no-such-thing', multiple: true },
    ]);
    expect(record.subjects).toEqual(['German Wine Route', 'Sommelier']);
    expect(record.none).toEqual([]);
  });

  it('nested fields: an object per match, an array of objects with multiple', () => {
    const result = list('poslovi-jobs.html', {
      list: {
        selector: 'li.job',
        fields: [
          {
            name: 'rows',
            selector: 'dt',
            multiple: true,
            fields: [
              { name: 'label', attribute: 'ownText' },
              { name: 'value', xpath: 'normalize-space(following-sibling::dd[1])' },
            ],
          },
          {
            name: 'job',
            selector: 'dd.title',
            fields: [
              { name: 'title', selector: 'a' },
              { name: 'href', selector: 'a', attribute: 'href' },
            ],
          },
        ],
      },
    });
    const first = result.items[0].record;
    expect((first.rows as unknown[]).slice(0, 2)).toEqual([
      { label: 'Tip', value: 'ZZZCG' },
      { label: 'Posao', value: 'NASTAVNIK/CA FIZIKE DAŠO PAVIČIĆ OŠ JU' },
    ]);
    expect(first.job).toEqual({ title: 'NASTAVNIK/CA FIZIKE', href: 'http://www.zzzcg.me/poslovi/76072706/' });
  });

  it('transform steps in order: replace, split, lowercase, uppercase, default, number', () => {
    const record = detail('dw-article.html', [
      {
        name: 'subjects',
        selector: 'ul.smallList li:nth-child(3)',
        transform: [{ replace: 'Related Subjects', with: '' }, { split: ',' }, 'lowercase'],
      },
      { name: 'upper', selector: 'ul.smallList strong', transform: 'uppercase' },
      { name: 'missing', selector: '.no-such-thing', transform: { default: 'n/a' } },
      { name: 'year', selector: 'ul.smallList li', transform: [{ regex: '\\d{4}' }, 'number'] },
      {
        name: 'swapped',
        selector: 'ul.smallList li',
        transform: [
          { regex: '(\\d\\d)\\.(\\d\\d)\\.(\\d{4})' },
          { replace: '(\\d\\d)\\.(\\d\\d)\\.(\\d{4})', with: '$3-$2-$1' },
        ],
      },
    ]);
    expect(record).toEqual({
      subjects: ['german wine route', 'sommelier'],
      upper: 'DATE',
      missing: 'n/a',
      year: 2013,
      swapped: '2013-06-10',
    });
  });

  it('a date in another zone and locale; one that does not parse is null and counted', () => {
    const result = extractDetailPage(page('dw-article.html'), [
      {
        name: 'date',
        xpath: "//li[strong='Date']",
        attribute: 'ownText',
        transform: { date: 'dd.MM.yyyy', zone: 'Europe/Berlin' },
      },
      { name: 'bad', xpath: "//li[strong='Author']", attribute: 'ownText', transform: { date: 'dd.MM.yyyy' } },
      {
        name: 'month',
        selector: 'title',
        transform: [
          { default: '10. Juni 2013' },
          { replace: '^.*$', with: '10. Juni 2013' },
          { date: 'd. MMMM yyyy', locale: 'de' },
        ],
      },
    ]);
    expect(result.record).toEqual({
      date: '2013-06-10T00:00:00.000+02:00',
      bad: null,
      month: '2013-06-10T00:00:00.000Z',
    });
    expect(result.unparsedDates).toBe(1);
  });

  it('xpath on list, next and follow, attribute values and text nodes', () => {
    const result = list('poslovi-jobs.html', {
      list: { xpath: "//li[@class='job']", fields: [{ name: 'title', xpath: './/dd[2]//a/text()' }] },
      next: { xpath: "(//a[contains(@href, 'poslovi')])[1]/@href" },
      follow: { xpath: ".//dd[@class='title']//a", fields: [{ name: 'x' }] },
    });
    expect(result.items[0]).toEqual({
      record: { title: 'NASTAVNIK/CA FIZIKE' },
      followUrl: 'http://www.zzzcg.me/poslovi/76072706/',
    });
    expect(result.nextUrl).toMatch(/^http:\/\/www\.zzzcg\.me\//);
  });
});

describe('XPath evaluation', () => {
  it('reads //name steps as /descendant::name only where both select the same nodes', () => {
    expect(descendantForm("//tr[@class='brand']/td | .//a/@href")).toBe(
      "/descendant::tr[@class='brand']/td | ./descendant::a/@href",
    );
    for (const kept of ['//li[1]', "//li[@class='x'][2]", '//a[contains(@href, "x")]', "//a[1][@t='//b']", '//*'])
      expect(descendantForm(kept).startsWith('//')).toBe(true);
    const { doc } = parsePage(page('poslovi-jobs.html'));
    const ids = (expr: string) => selectXPath(doc, expr, doc).map((m) => ('node' in m ? m.node : m.value));
    for (const [fast, slow] of [
      [
        "//li[@class='job']//a",
        "/descendant-or-self::node()/child::li[@class='job']/descendant-or-self::node()/child::a",
      ],
      ['//dd/strong', '/descendant-or-self::node()/child::dd/child::strong'],
    ])
      expect(ids(fast)).toEqual(ids(slow));
  });
});

describe('bad input', () => {
  it('a catastrophic pattern runs in linear time (RE2)', () => {
    const big = {
      finalUrl: 'https://x.example/',
      contentType: 'text/html',
      body: Buffer.from(`<p>${'a'.repeat(100_000)}!</p>`),
    };
    // A backtracking engine would not finish this match; RE2 reads the text once, well within the test's timeout.
    const record = extractDetailPage(big, [{ name: 'x', selector: 'p', transform: { regex: '^(a+)+$' } }]).record;
    expect(record.x).toBeNull();
  });

  it('10,000 matches of a multiple field', () => {
    const html = `<ul>${'<li>x</li>'.repeat(10_000)}</ul>`;
    const body = { finalUrl: 'https://x.example/', contentType: 'text/html', body: Buffer.from(html) };
    const record = extractDetailPage(body, [{ name: 'all', selector: 'li', multiple: true }]).record;
    expect((record.all as string[]).length).toBe(10_000);
  });

  it('save-time problems name the field path', () => {
    const problems = (fields: FieldSpec[], extra?: Partial<AgentDefinition>) =>
      validateDefinition(def(fields, extra)).problems;
    expect(problems([{ name: 'a', xpath: '//div[' }])[0]).toMatch(
      /^list\.fields\[0\]\.xpath: invalid XPath '\/\/div\['/,
    );
    expect(problems([{ name: 'a', xpath: 'foo(.)' }])[0]).toMatch(/^list\.fields\[0\]\.xpath: invalid XPath/);
    expect(problems([{ name: 'a', transform: ['trim', { regex: '(a' }] }])).toEqual([
      "list.fields[0].transform[1].regex: invalid regular expression '(a': error parsing regexp: missing closing ): `(a`",
    ]);
    expect(problems([{ name: 'a', transform: { regex: '(?=a)' } }])[0]).toMatch(
      /^list\.fields\[0\]\.transform\.regex: invalid regular expression/,
    );
    expect(problems([{ name: 'a', transform: { regex: '(a)', group: 2 } }])).toEqual([
      'list.fields[0].transform.group: the pattern has 1 group(s), not 2',
    ]);
    expect(problems([{ name: 'a', transform: { date: 'qqqq' } }])[0]).toMatch(
      /^list\.fields\[0\]\.transform\.date: date format 'qqqq'/,
    );
    expect(problems([{ name: 'a', transform: { date: 'dd.MM.yyyy', zone: 'Mars/Olympus' } }])).toEqual([
      "list.fields[0].transform.date: zone 'Mars/Olympus' is not an IANA time zone",
    ]);
    expect(problems([{ name: 'o', fields: [{ name: 'a', selector: 'a', xpath: '//a' }] }])).toEqual([
      'list.fields[0].fields[0]: give one of selector, xpath, not several',
    ]);
    expect(problems([{ name: 'a', jsonPath: '$.a' }])[0]).toMatch(/^list\.fields\[0\]\.jsonPath: applies only to JSON/);
  });

  it('fields nested past 3 levels', () => {
    const deep: FieldSpec = {
      name: 'l1',
      fields: [{ name: 'l2', fields: [{ name: 'l3', fields: [{ name: 'l4' }] }] }],
    };
    expect(validateDefinition(def([deep])).problems).toEqual([
      'list.fields[0].fields[0].fields[0].fields: fields nest at most 3 levels deep',
    ]);
    const three: FieldSpec = { name: 'l1', fields: [{ name: 'l2', fields: [{ name: 'l3' }] }] };
    expect(validateDefinition(def([three]))).toEqual({ valid: true, problems: [] });
  });
});
