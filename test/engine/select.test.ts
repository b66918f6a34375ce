// src/engine/select.ts reads pages without cheerio's per-page API: it must select and read exactly what
// cheerio did before (the engine's earlier reading). Compared here against cheerio itself, on the
// real pages of the Builder's development set, the fixture site and the bench catalog, for selectors
// drawn from each page (its tags, classes, ids and attributes, with combinators and pseudo-classes, the
// positional ones cheerio-select adds included), searched from the document and from elements.
import fs from 'node:fs';
import path from 'node:path';
import { load, type CheerioAPI } from 'cheerio';
import { describe, expect, it } from 'vitest';
import { itemPage, listPage } from '../../bench/engine.js';
import type { RealPage } from '../../bench/builder-real/score.js';
import { DEVELOPMENT_SITES } from '../../bench/builder-real/split.js';
import type { AgentField } from '../../src/engine/definition.js';
import { applyTransform, type FieldValue } from '../../src/engine/extract.js';
import { extractDetailPage, extractListPage, type ListPlan } from '../../src/engine/page-extract.js';
import { parsePage } from '../../src/engine/parse.js';
import { attrOf, htmlOf, matches, selectAll, selectFirst, textOf, type AnyNode } from '../../src/engine/select.js';
import { BUILDER_FIXTURES } from '../fixtures/builder/pages.js';
import { rng } from './fast-parse-fuzz.js';

const BASE = 'https://example.test/dir/page';
const asPage = (html: string | Buffer) => ({
  finalUrl: BASE,
  body: Buffer.isBuffer(html) ? html : Buffer.from(html),
  contentType: 'text/html',
});

/** The engine's extraction as it was, on cheerio's API (page-extract.ts and extract.ts read pages with cheerio). */
function cheerioList(page: ReturnType<typeof asPage>, def: ListPlan, fast: boolean) {
  const $ = load(parsePage(page, fast).doc);
  const read = (scope: ReturnType<CheerioAPI>, f: AgentField): FieldValue => {
    const target = f.selector ? scope.find(f.selector).first() : scope.first();
    if (target.length === 0) return applyTransform(null, f.transform, BASE);
    const attribute = f.attribute ?? 'text';
    const value =
      attribute === 'text' ? target.text() : attribute === 'html' ? target.html() : (target.attr(attribute) ?? null);
    return applyTransform(value, f.transform, BASE);
  };
  const items = $(def.list.selector)
    .toArray()
    .map((element) => {
      const scope = $(element);
      const record = Object.fromEntries(def.list.fields.map((f) => [f.name, read(scope, f)]));
      let followUrl: string | null = null;
      if (def.follow) {
        const link = scope.is(def.follow.selector) ? scope : scope.find(def.follow.selector).first();
        const href = link.attr('href');
        followUrl = href === undefined ? null : (applyTransform(href, 'absoluteUrl', BASE) as string | null);
      }
      return { record, followUrl };
    });
  const next = def.next ? $(def.next.selector).first().attr('href') : undefined;
  const detail = Object.fromEntries(def.list.fields.map((f) => [f.name, read($.root(), f)]));
  return {
    items,
    nextUrl: next === undefined ? null : applyTransform(next, 'absoluteUrl', BASE),
    scripted: items.length === 0 && $('script').length > 0,
    detail,
  };
}

/** Selectors made of what the page holds: its tags, classes, ids and attributes, combined every way. */
function selectorsFor($: CheerioAPI, seed: number): string[] {
  const random = rng(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)];
  const elements = $('*').toArray() as { name: string; attribs: Record<string, string> }[];
  const simple = (): string => {
    const el = pick(elements);
    const cls = (el.attribs.class ?? '').split(/\s+/).filter((c) => /^[A-Za-z_][\w-]*$/.test(c));
    const attr = Object.keys(el.attribs).filter((a) => /^[a-z][\w-]*$/.test(a));
    const tag = /^[a-z][a-z0-9]*$/.test(el.name) ? el.name : '*';
    switch (Math.floor(random() * 6)) {
      case 0:
        return tag;
      case 1:
        return cls.length ? `${tag}.${pick(cls)}` : tag;
      case 2:
        return cls.length ? `.${pick(cls)}` : `${tag}:first-child`;
      case 3:
        return attr.length ? `[${pick(attr)}]` : tag;
      case 4:
        return /^[A-Za-z][\w-]*$/.test(el.attribs.id ?? '') ? `#${el.attribs.id}` : `${tag}:not(.x)`;
      default:
        return `${tag}${pick([':first-child', ':last-child', ':nth-child(2)', ':empty', ':has(a)', ':contains(a)'])}`;
    }
  };
  const out = ['a', 'a[href]', 'script', 'img', 'li a', 'div > a', '*', 'td, th', 'h1, h2, h3', 'body *'];
  for (let i = 0; i < 25; i++) {
    const shape = Math.floor(random() * 9);
    if (shape <= 2) out.push(simple());
    else if (shape === 3) out.push(`${simple()} ${simple()}`);
    else if (shape === 4) out.push(`${simple()} > ${simple()}`);
    else if (shape === 5) out.push(`${simple()}, ${simple()}`);
    else if (shape === 6) out.push(`${simple()}${pick([':first', ':last', ':eq(1)', ':gt(0)', ':odd'])}`);
    else if (shape === 7) out.push(pick([`:scope > ${simple()}`, `> ${simple()}`, `+ ${simple()}`, `~ ${simple()}`]));
    else out.push(`${simple()} ${pick([':not(:first)', ':has(> a)', ':is(div a)', '~ span', '+ *'])}`);
  }
  return out;
}

/** Every selector, from the document and from some of the elements it matches, both ways. */
function compare(html: string | Buffer, seed: number): number {
  const page = asPage(html);
  const { doc } = parsePage(page, true);
  const $ = load(doc);
  const index = new Map(
    $('*')
      .toArray()
      .map((el, i) => [el as AnyNode, i]),
  );
  let checked = 0;
  for (const selector of selectorsFor($, seed)) {
    let expected: AnyNode[];
    try {
      expected = $(selector).toArray();
    } catch (err) {
      expect(() => selectAll(doc, selector, doc), selector).toThrow((err as Error).message);
      continue;
    }
    expect(
      selectAll(doc, selector, doc).map((n) => index.get(n)),
      selector,
    ).toEqual(expected.map((n) => index.get(n)));
    const scopes = [...expected.slice(0, 3), ...$('body, div, li, tr').toArray().slice(0, 4)];
    for (const scope of scopes) {
      const found = $(scope).find(selector);
      expect(
        selectAll(scope, selector, doc).map((n) => index.get(n)),
        `${selector} in element`,
      ).toEqual(found.toArray().map((n) => index.get(n)));
      const first = selectFirst(scope, selector, doc);
      expect(first === undefined ? null : index.get(first)).toBe(found.length ? index.get(found[0]) : null);
      if (first) {
        expect(textOf(first)).toBe(found.first().text());
        expect(htmlOf(first)).toBe(found.first().html());
        for (const name of ['href', 'class', 'id', 'value', 'checked', 'src', 'data-x'])
          expect(attrOf(first, name), name).toBe(found.first().attr(name));
      }
      expect(matches(scope, selector), `${selector} is`).toBe($(scope).is(selector));
      checked++;
    }
  }
  return checked;
}

const realDir = path.join(import.meta.dirname, '../../bench/builder-real');
// The pages of the first development set (the corpus's other pages are for scoring the Builder).
const realPages = (
  JSON.parse(fs.readFileSync(path.join(realDir, 'manifest.json'), 'utf8')) as { pages: RealPage[] }
).pages.filter((p) => DEVELOPMENT_SITES.includes(p.site));

describe('reading a page without cheerio selects and reads what cheerio does', () => {
  it('on the real pages of the Builder development set', () => {
    let checked = 0;
    realPages.forEach((p, i) => (checked += compare(fs.readFileSync(path.join(realDir, 'pages', p.file)), i + 1)));
    expect(checked).toBeGreaterThan(1000);
  });

  it('on the Builder fixtures and the bench catalog', () => {
    const pages = [...BUILDER_FIXTURES.flatMap((f) => Object.values(f.pages)), listPage(1), itemPage(3)];
    pages.forEach((html, i) => compare(html, 100 + i));
  });

  it('extracts the same records, next page and follow links as the engine did on cheerio', () => {
    const defs = (html: string | Buffer): ListPlan[] => {
      const $ = load(parsePage(asPage(html), true).doc);
      const selectors = selectorsFor($, 7);
      // Lists of up to 300 elements: enough to meet every shape, in a suite's time.
      const lists = selectors.filter((selector) => {
        try {
          return $(selector).length <= 300;
        } catch {
          return true;
        }
      });
      return lists.slice(0, 3).map((selector, i) => ({
        list: {
          selector,
          fields: [
            { name: 'text', transform: 'trim' as const },
            { name: 'link', selector: 'a', attribute: 'href', transform: 'absoluteUrl' as const },
            { name: 'html', selector: selectors[10 + i], attribute: 'html' },
            { name: 'n', selector: 'span, td', transform: 'number' as const },
          ],
        },
        next: { selector: 'a[rel=next], a.next, a' },
        follow: { selector: i % 2 ? 'a' : 'a[href]', fields: [] },
      }));
    };
    realPages.forEach((p, n) => {
      const html = fs.readFileSync(path.join(realDir, 'pages', p.file));
      for (const def of defs(html)) {
        // The standard parser's tree too, on every fourth page.
        for (const fast of n % 4 === 0 ? [true, false] : [true]) {
          let expected;
          try {
            expected = cheerioList(asPage(html), def, fast);
          } catch {
            expect(() => extractListPage(asPage(html), def, fast)).toThrow();
            continue;
          }
          const list = extractListPage(asPage(html), def, fast);
          expect(JSON.stringify(list.items), def.list.selector).toBe(JSON.stringify(expected.items));
          expect(list.nextUrl).toBe(expected.nextUrl);
          expect(list.scripted).toBe(expected.scripted);
          expect(extractDetailPage(asPage(html), def.list.fields, fast).record).toEqual(expected.detail);
        }
      }
    });
  }, 120_000);
});
