// The fast parse path gives the standard's tree or nothing: for every document it accepts,
// the whole tree (node types, names, namespaces, attributes with their namespaces and prefixes, text,
// comments, doctype, document mode) equals parse5's, so does `$.html()`, and so do the records the
// engine's extraction reads from it. Checked on thousands of random documents rich in the cases where a
// lenient parser's tree differs from the standard's, on every real page of the Builder's development set,
// the Builder's fixture pages and the benchmark's catalog pages; and the Run's evidence says which parser
// each page used.
import fs from 'node:fs';
import path from 'node:path';
import { load, loadBuffer } from 'cheerio';
import { encodeHTML } from 'entities';
import { describe, expect, it } from 'vitest';
import { itemPage, listPage } from '../../bench/engine.js';
import type { RealPage } from '../../bench/builder-real/score.js';
import { DEVELOPMENT_SITES } from '../../bench/builder-real/split.js';
import { runExtraction } from '../../src/engine/crawler.js';
import type { AgentField } from '../../src/engine/definition.js';
import { fastParse, lastRejection } from '../../src/engine/fast-parse.js';
import { extractDetailPage, extractListPage } from '../../src/engine/page-extract.js';
import { parsePage } from '../../src/engine/parse.js';
import { BUILDER_FIXTURES } from '../fixtures/builder/pages.js';
import { startFixtureSite } from '../helpers/fixture-site.js';
import { generateDocument, rng } from './fast-parse-fuzz.js';

type Node = { type: string; name?: string; data?: string; children?: Node[]; [k: string]: unknown };

/** Everything of a node the tree adapter sets, children included, as one string. */
function shape(node: Node): string {
  const own = {
    type: node.type,
    name: node.name,
    data: node.data,
    namespace: node.namespace,
    attribs: node.attribs ? Object.entries(node.attribs as object) : undefined,
    ns: node['x-attribsNamespace'] ? Object.entries(node['x-attribsNamespace'] as object) : undefined,
    prefix: node['x-attribsPrefix'] ? Object.entries(node['x-attribsPrefix'] as object) : undefined,
    mode: node['x-mode'],
    doctype: [node['x-name'], node['x-publicId'], node['x-systemId']],
    parentOk: (node.children ?? []).every((c) => (c as unknown as { parent: unknown }).parent === node),
  };
  return `${JSON.stringify(own)}[${(node.children ?? []).map(shape).join(',')}]`;
}

const GENERIC_FIELDS: AgentField[] = [
  { name: 'text', attribute: 'text' },
  { name: 'html', attribute: 'html' },
  { name: 'class', attribute: 'class' },
  { name: 'href', attribute: 'href', transform: 'absoluteUrl' },
  { name: 'first', selector: 'td, li, a, span, b', attribute: 'text', transform: 'trim' },
];
const GENERIC_PLAN = { list: { selector: 'body *', fields: GENERIC_FIELDS }, next: { selector: 'a[href]' } };

const asPage = (html: string | Buffer, contentType = 'text/html; charset=utf-8') => ({
  finalUrl: 'https://example.test/dir/page',
  body: Buffer.isBuffer(html) ? html : Buffer.from(html),
  contentType,
});

/** Compares the fast path with parse5 on one page; returns whether the fast path took it. */
function checkSame(html: string | Buffer, contentType?: string, fields: AgentField[] = GENERIC_FIELDS): boolean {
  const page = asPage(html, contentType);
  const fast = parsePage(page, true);
  const standard = parsePage(page, false);
  if (fast.parser === 'standard') return false;
  expect(shape(fast.doc as unknown as Node)).toBe(shape(standard.doc as unknown as Node));
  expect(load(fast.doc).html()).toBe(load(standard.doc).html());
  const plan = { ...GENERIC_PLAN, list: { selector: 'body *', fields } };
  expect(JSON.stringify(extractListPage(page, plan, true).items)).toBe(
    JSON.stringify(extractListPage(page, plan, false).items),
  );
  expect(extractDetailPage(page, fields, true).record).toEqual(extractDetailPage(page, fields, false).record);
  return true;
}

describe('fast parse path', () => {
  it('builds the standard tree for every random document it accepts (fixed seed)', () => {
    const random = rng(20271127);
    const count = Number(process.env.FAST_PARSE_FUZZ ?? 6000);
    let accepted = 0;
    const reasons = new Map<string, number>();
    for (let i = 0; i < count; i++) {
      const html = generateDocument(random);
      const doc = fastParse(html);
      if (!doc) {
        const why = lastRejection().replace(/ .*/s, '');
        reasons.set(why, (reasons.get(why) ?? 0) + 1);
        continue;
      }
      accepted++;
      const standard = load(html);
      const mine = shape(doc as unknown as Node);
      if (mine !== shape(standard.root()[0] as unknown as Node)) {
        throw new Error(`document ${i} differs:\n${html}\nfast: ${load(doc).html()}\nstd:  ${standard.html()}`);
      }
      expect(load(doc).html()).toBe(standard.html());
      expect(checkSame(html)).toBe(true);
    }
    console.log(
      `fuzz: ${accepted} of ${count} documents on the fast path, all identical; rejected by reason: ` +
        [...reasons].map(([r, n]) => `${r} ${n}`).join(', '),
    );
    // Both paths are exercised, and the accepted ones are not only trivial documents.
    expect(accepted).toBeGreaterThan(count * 0.2);
    expect(count - accepted).toBeGreaterThan(count * 0.2);
  }, 120_000);

  it('decodes every named reference the encoder knows, with and without ";", in text and attributes', () => {
    const names = new Set<string>();
    for (let cp = 0x20; cp < 0x1d800; cp++) {
      if (cp >= 0xd800 && cp < 0xe000) continue;
      const m = /^&([A-Za-z][A-Za-z0-9]*);$/.exec(encodeHTML(String.fromCodePoint(cp)));
      if (m) names.add(m[1]);
    }
    expect(names.size).toBeGreaterThan(1000);
    const after = [';', '', '=', 'x', '1', ' ', '&'];
    const cells = [...names].flatMap((n) => after.map((a) => `&${n}${a}`));
    for (let i = 0; i < cells.length; i += 400) {
      const chunk = cells.slice(i, i + 400);
      const body = chunk.map((c) => `<p title="${c}" data-u=${c.replace(/[ &]$/, '')}>${c}</p>`).join('\n');
      const html = `<!DOCTYPE html><html><head></head><body>${body}</body></html>`;
      expect(checkSame(html)).toBe(true);
    }
    const numeric = Array.from({ length: 400 }, (_, i) => `&#${i};&#x${(i * 97).toString(16)}&#${i + 0xd7f0}x`);
    expect(
      checkSame(`<!DOCTYPE html><html><head></head><body><p a="${numeric.join('')}">${numeric.join('')}</p>`),
    ).toBe(true);
  });

  it('takes most real pages of the Builder development set, and gives them the standard tree', () => {
    const dir = path.join(import.meta.dirname, '../../bench/builder-real');
    const pages = (
      JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { pages: RealPage[] }
    ).pages.filter((p) => DEVELOPMENT_SITES.includes(p.site));
    const taken: string[] = [];
    const left: string[] = [];
    for (const p of pages) {
      const body = fs.readFileSync(path.join(dir, 'pages', p.file));
      // Served without a charset, as bench -- builder-real does: the page's own meta decides.
      const standard = load(parsePage(asPage(body, 'text/html'), false).doc);
      // The standard path decodes and parses exactly as before this change (cheerio's loadBuffer).
      expect(standard.html()).toBe(loadBuffer(body, { encoding: { defaultEncoding: 'utf-8' } }).html());
      if (checkSame(body, 'text/html')) taken.push(p.id);
      else left.push(`${p.id} (${lastRejection().slice(0, 60)})`);
    }
    console.log(`real pages: ${taken.length} of ${pages.length} on the fast path; parse5 for ${left.join('; ')}`);
    expect(taken.length).toBeGreaterThanOrEqual(Math.ceil(pages.length * 0.8));
  }, 120_000);

  it("gives the Builder fixtures' and the catalog's pages the standard tree and records", () => {
    let taken = 0;
    let all = 0;
    for (const fixture of BUILDER_FIXTURES) {
      for (const html of Object.values(fixture.pages)) {
        all++;
        if (checkSame(html)) taken++;
      }
    }
    for (const html of [listPage(1), listPage(10), itemPage(1), itemPage(200)]) {
      all++;
      if (checkSame(html)) taken++;
    }
    console.log(`fixture and catalog pages: ${taken} of ${all} on the fast path`);
    expect(taken).toBe(all);
  });

  it('leaves to parse5 what it cannot prove', () => {
    const cases = [
      '<p><div>x</div></p>', // div closes p in the standard
      '<a href=1>x<a href=2>y</a></a>', // adoption agency
      '<b><i>x</b></i>', // misnested formatting
      '<table><td>x</td></table>', // implied tbody and tr
      '<table>text<tr><td>x</td></tr></table>', // foster parenting
      '<ul><li>a<li>b</ul>', // implied </li>
      '<select><div>x</div></select>',
      '<template><p>x</p></template>',
      '<math><mi>x</mi></math>',
      '<svg><foreignObject><p>x</p></foreignObject></svg>',
      '<h1><h2>x</h2></h1>',
      '<form><form></form></form>',
      '<p>a\0b</p>',
      '<script><!--<script></script>x</script>',
      '<span>x</div></span>',
      '<!-- a --!> b -->',
      '<div a=b"c>x</div>',
      '<![CDATA[x]]>',
    ];
    for (const body of cases) {
      const html = `<!DOCTYPE html><html><head></head><body>${body}</body></html>`;
      expect(fastParse(html), body).toBeNull();
      expect(parsePage(asPage(html)).parser).toBe('standard');
    }
  });

  it('produces what the standard makes of what it accepts: document shape, head re-entry, newlines, raw text', () => {
    const cases = [
      '<!DOCTYPE html>\r\n<html>\r\n<head>\n<title>a&amp;b</title></head>\n<body>\n<p>x</p></body>\n</html>\n \n<!--c-->',
      '<html><script>1</script><head><title>t</title></head><body>y</body></html>',
      '<!DOCTYPE html><html><head></head><body><pre>\nx</pre><pre>&#10;\ny</pre><textarea>\nt &amp</textarea></body>',
      '<html lang=en><body class=a><noscript><img src=x></noscript><iframe><b>x</b></iframe><html data-x=1></body>',
      '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "x"><html><head></head><body><p>x</p></body>',
      '<body><table><tr><td>1</td></tr></table><select><option>a<option>b<optgroup><option>c</select></body>',
      '<body><p>a<div>b</div><svg viewBox="0 0 1 1"><lineargradient/><path d="M0"/><use xlink:href=#a /></svg>',
      '<body><img src=a></img><br/></body></html><script>late()</script>',
      // Duplicates beyond the short list, and element names that are Object.prototype's keys.
      `<body><div ${Array.from({ length: 40 }, (_, i) => `a${i % 25}=${i}`).join(' ')}>x</div></body>`,
      '<body><constructor><p>y</p></constructor><tostring __proto__=1>z</tostring></body>',
    ];
    for (const html of cases) expect(checkSame(html), html).toBe(true);
  });

  it("records each page's parser in the Run's evidence and log summary", async () => {
    const site = await startFixtureSite();
    try {
      const definition = {
        startUrl: `${site.url}/catalog`,
        list: { selector: 'div.product', fields: [{ name: 'title', selector: '.title' }] },
        next: { selector: 'a.next' },
        follow: { selector: 'a.title', fields: [{ name: 'name', selector: 'h1.name' }] },
      };
      const logs: string[] = [];
      const fast = await runExtraction({
        definition,
        inputRows: [],
        allowPrivateTargets: true,
        log: (_level, message) => logs.push(message),
      });
      const pages = fast.stats.pageCount;
      expect(pages).toBeGreaterThan(30);
      expect(fast.evidence.parser).toEqual({ fast: pages, standard: 0 });
      expect(logs.filter((l) => l.includes(`pages parsed: ${pages} fast, 0 standard`))).toHaveLength(1);
    } finally {
      await site.close();
    }
  });
});
