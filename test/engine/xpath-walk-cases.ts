// The direct tree walk of simple XPath expressions (xpath-walk.ts) against the `xpath` library on real saved
// pages (bench/builder-real/pages): for expressions made from each page's own elements, classes, ids and
// attributes, from the document and from elements inside it, both give the same matches in the same order.
// The pages are split between two test files (xpath-walk.test.ts, xpath-walk-more.test.ts), each under a
// minute: a file that runs longer makes vitest's fork time out on its reports to the main process.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isTag } from 'domutils';
import { parsePage } from '../../src/engine/parse.js';
import type { AnyNode, Document, Element } from '../../src/engine/select.js';
import { libraryXPath, selectXPath, type XPathMatch } from '../../src/engine/xpath.js';
import { walkPlan } from '../../src/engine/xpath-walk.js';

const pagesDir = path.join(import.meta.dirname, '../../bench/builder-real/pages');
/** The library takes seconds on the largest pages; the smaller half of the corpus keeps the test quick. */
const MAX_PAGE_BYTES = 120 * 1024;
const files = fs
  .readdirSync(pagesDir)
  .filter((f) => f.endsWith('.html') && fs.statSync(path.join(pagesDir, f)).size <= MAX_PAGE_BYTES)
  .sort();

function elementsOf(doc: Document): Element[] {
  const out: Element[] = [];
  const stack: AnyNode[] = [...doc.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isTag(node)) out.push(node);
    if ('children' in node) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  return out;
}

/** A deterministic sample of `count` items. */
function sample<T>(items: T[], count: number, seed: number): T[] {
  if (items.length <= count) return items;
  const out: T[] = [];
  let x = seed;
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out.push(items[x % items.length]);
  }
  return out;
}

const q = (s: string) => (s.includes("'") ? `"${s}"` : `'${s}'`);

/** Expressions made from the page: names, classes, ids, attributes, positions, parents and children. */
function expressionsFor(elements: Element[], seed: number): string[] {
  const out = new Set<string>([
    '//a',
    '//a/@href',
    '//h1',
    '//title/text()',
    '/html/body/*',
    '/html/body/*[2]',
    '/html/head/meta/@content',
    '//li[1]',
    '//ul/li[2]/a',
    '//p//text()',
    '//div//a[1]/@href',
    '//*[@id]',
    '//td[2]',
    '//tr/td[1]/text()',
    '//img/@src',
    '//IMG/@SRC',
    '//svg',
    '//svg//path/@d',
    '//clippath',
    '//clipPath',
    '//*[@viewbox]',
    '//*[@viewBox]/@viewBox',
    '//template//*',
    '//noscript',
    '//script/text()',
    '//a[@href][2]',
    '//a[2][@href]',
    '//span[1][2]',
    "//meta[@property='og:title']/@content",
    "//link[@rel='canonical']/@href",
    "//div[contains(@class, '')]",
    "//*[contains(@class,'nav')]//a",
  ]);
  for (const el of sample(elements, 8, seed)) {
    const name = el.name;
    const parent = el.parent && isTag(el.parent) ? el.parent : null;
    out.add(`//${name}`);
    out.add(`//${name.toUpperCase()}`);
    out.add(`//${name}/text()`);
    out.add(`//${name}/text()[2]`);
    out.add(`//${name}//text()`);
    out.add(`//${name}[3]`);
    const cls = el.attribs.class;
    if (cls !== undefined) {
      out.add(`//${name}[@class=${q(cls)}]`);
      out.add(`//*[@class=${q(cls)}]/*`);
      const token = cls.split(/\s+/).find((t) => t !== '');
      if (token) out.add(`//${name}[contains(@class, ${q(token)})]//a/@href`);
    }
    if (el.attribs.id !== undefined) out.add(`//*[@id=${q(el.attribs.id)}]//${name === 'a' ? 'span' : 'a'}`);
    for (const attr of Object.keys(el.attribs).slice(0, 2)) {
      if (!/^[A-Za-z_][\w.-]*$/.test(attr)) continue;
      out.add(`//${name}[@${attr}]/@${attr}`);
      out.add(`//${name}/@${attr.toUpperCase()}`);
    }
    if (parent) {
      out.add(`//${parent.name}/${name}`);
      out.add(`//${parent.name}/${name}[2]`);
      out.add(`//${parent.name}//${name}/..`); // left to the library
      out.add(`//${parent.name}/*[1]/text()`);
    }
  }
  return [...out];
}

/** Relative expressions read from list-like elements (what list and follow fields do). */
const RELATIVE = [
  '.',
  '*',
  '*[2]',
  'text()',
  './text()',
  './text()[1]',
  './text()[2]',
  './a',
  './/a',
  './/a/@href',
  './/a[1]/@href',
  './/img/@src',
  '@class',
  '@CLASS',
  '@href',
  './*[1]',
  './*[2]//text()',
  './/span[@class]',
  './/*[@class]/@class',
  './/li[2]',
  "./div[contains(@class,'a')]",
  '//h1',
  '//title',
];

const key = (doc: Document) => {
  const ids = new Map<AnyNode, number>();
  elementsOf(doc); // ids by first sight below
  return (m: XPathMatch) => {
    if ('value' in m) return `value:${m.value}`;
    let id = ids.get(m.node);
    if (id === undefined) ids.set(m.node, (id = ids.size));
    return `node:${id}`;
  };
};

/** The comparisons of one of `shards` shares of the pages (the first share also checks the forms read). */
export function describeWalk(shard: number, shards: number) {
  describe(`the direct walk equals the xpath library on real pages (${shard + 1} of ${shards})`, () => {
    if (shard === 0)
      it('reads the simple forms and leaves the others to the library', () => {
        for (const x of ['//h1', "//tr[@class='brand']/td", "./a[@class='title']/@href", '@data-id', './text()[2]'])
          expect(walkPlan(x), x).not.toBeNull();
        for (const x of [
          '.',
          '..',
          '//a/..',
          '//@href',
          'child::a',
          "//li[strong='Author']",
          'normalize-space(//h1)',
          '//a | //b',
          '//x:a',
          '//a[last()]',
          '//a[0]',
          '//text()/a',
          '// a',
          'count(//a)',
        ])
          expect(walkPlan(x), x).toBeNull();
      });

    it.each(files.filter((_, i) => i % shards === shard))('%s', (file) => {
      const body = fs.readFileSync(path.join(pagesDir, file));
      const { doc } = parsePage({ body, contentType: 'text/html' });
      const elements = elementsOf(doc);
      const id = key(doc);
      let compared = 0;
      const check = (scope: AnyNode, x: string) => {
        const expected = libraryXPath(scope, x, doc).map(id);
        expect(selectXPath(scope, x, doc).map(id), `${file}: ${x}`).toEqual(expected);
        expect(selectXPath(scope, x, doc, 1).map(id), `${file}: ${x} (first)`).toEqual(expected.slice(0, 1));
        if (walkPlan(x)) compared++;
      };
      for (const x of expressionsFor(elements, file.length * 7919)) check(doc, x);
      const scopes = sample(
        elements.filter((e) => e.children.length > 1),
        4,
        file.length,
      );
      for (const scope of scopes) for (const x of RELATIVE) check(scope, x);
      expect(compared).toBeGreaterThan(40);
    });
  });
}
