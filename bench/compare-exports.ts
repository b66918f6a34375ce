// Byte-for-byte comparison of the engine's output between two source trees (an earlier commit's and
// today's): every page the repository keeps (the Builder's real pages, the Builder fixtures, the fixture
// site, the bench catalog) read with the Builder's own draft for it and with a set of definitions that use
// every keyword of the original language (selectors, text/html/attributes, trim/number/absoluteUrl, next,
// follow), as list page and as detail page; each result exported as CSV, JSON and NDJSON.
//
//   npx tsx bench/compare-exports.ts cases .bench/compare/cases.json     (writes the cases, from today's Builder)
//   npx tsx bench/compare-exports.ts dump .bench/compare/cases.json <src dir> <out.json>
//   npx tsx bench/compare-exports.ts diff <a.json> <b.json>
// An earlier tree: `git archive <commit> src | tar -x -C <dir>` and a `node_modules` link beside its src.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

interface Case {
  id: string;
  url: string;
  html: string;
  definition: Record<string, unknown>;
}

const ROOT = path.join(import.meta.dirname, '..');

/** Definitions that exercise the original language on any page. */
function genericDefinitions(url: string): Array<[string, Record<string, unknown>]> {
  const def = (list: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    startUrl: url,
    list,
    ...extra,
  });
  return [
    [
      'links',
      def(
        {
          selector: 'a',
          fields: [
            { name: 'text', transform: 'trim' },
            { name: 'raw' },
            { name: 'href', attribute: 'href', transform: 'absoluteUrl' },
            { name: 'inner', attribute: 'html' },
            { name: 'span', selector: 'span' },
            { name: 'n', transform: 'number' },
          ],
        },
        { next: { selector: 'a[rel=next], a.next, .pagination a' } },
      ),
    ],
    [
      'blocks',
      def({
        selector: 'div, article, section',
        fields: [
          { name: 'p', selector: 'p', transform: 'trim' },
          { name: 'img', selector: 'img', attribute: 'src', transform: 'absoluteUrl' },
          { name: 'class', attribute: 'class' },
          { name: 'price', selector: '[class*=price], .a-price, [itemprop=price]', transform: 'number' },
          { name: 'checked', selector: 'input', attribute: 'checked' },
        ],
      }),
    ],
    [
      'items',
      def(
        {
          selector: 'li, tr, dd',
          fields: [
            { name: 'self' },
            { name: 'first', selector: 'td:nth-child(2), span:first-child, strong', transform: 'trim' },
            { name: 'href', selector: 'a', attribute: 'href' },
            { name: 'value', selector: 'option, input', attribute: 'value' },
          ],
        },
        {
          follow: {
            selector: 'a',
            fields: [
              { name: 'title', selector: 'title', transform: 'trim' },
              { name: 'h1', selector: 'h1', transform: 'trim' },
              { name: 'description', selector: 'meta[name=description]', attribute: 'content' },
              { name: 'bodyLength', selector: 'script', attribute: 'html' },
            ],
          },
          export: { format: 'csv', columns: [{ name: 'self' }, { name: 'title' }, { name: 'href', required: true }] },
        },
      ),
    ],
  ];
}

async function makeCases(out: string): Promise<void> {
  const { load } = await import('cheerio');
  const { proposeDraft } = await import('../src/services/builder/inference/draft.js');
  const { BUILDER_FIXTURES } = await import('../test/fixtures/builder/pages.js');
  const pages: Array<{ id: string; url: string; html: string; prompt?: string }> = [];
  const realDir = path.join(ROOT, 'bench/builder-real');
  const manifest = JSON.parse(fs.readFileSync(path.join(realDir, 'manifest.json'), 'utf8')) as {
    pages: Array<{ id: string; file: string; site: string; prompt: string }>;
  };
  for (const p of manifest.pages)
    pages.push({
      id: `real/${p.id}`,
      url: `https://${p.site.split(' ')[0]}/page`,
      html: fs.readFileSync(path.join(realDir, 'pages', p.file), 'utf8'),
      prompt: p.prompt,
    });
  for (const f of BUILDER_FIXTURES)
    for (const [at, html] of Object.entries(f.pages))
      pages.push({
        id: `fixture/${f.name}${at}`,
        url: `http://fixture.test${at}`,
        html,
        ...(at === f.start ? { prompt: f.prompt } : {}),
      });
  const cases: Case[] = [];
  // The bench catalog's pages with the bench's own definitions (list pages, then detail pages).
  const bench = await import('./engine.js');
  const site = 'http://catalog.test';
  for (let n = 1; n <= 3; n++) {
    const html = bench.listPage(n);
    for (const [name, definition] of [
      ['catalog', bench.catalogDefinition(site)],
      ['fixture', bench.fixtureDefinition(site)],
    ] as const) {
      // `politeness` is about requests (the engine before the language did not know it); a page read here
      // makes none.
      const { politeness: _requestsOnly, ...reading } = definition as Record<string, unknown>;
      cases.push({ id: `catalog/list${n}#${name}`, url: `${site}/list/${n}`, html, definition: reading as never });
    }
    pages.push({ id: `catalog/list${n}`, url: `${site}/list/${n}`, html });
    pages.push({ id: `catalog/item${n}`, url: `${site}/item/${n}`, html: bench.itemPage(n) });
  }
  for (const page of pages) {
    for (const [name, definition] of genericDefinitions(page.url))
      cases.push({ id: `${page.id}#${name}`, url: page.url, html: page.html, definition });
    if (page.prompt) {
      const proposal = await proposeDraft({
        page: { $: load(page.html), url: page.url },
        prompt: page.prompt,
        fetchPage: () => Promise.resolve(null),
      }).catch(() => null);
      if (proposal)
        cases.push({
          id: `${page.id}#builder`,
          url: page.url,
          html: page.html,
          definition: proposal.definition as never,
        });
    }
  }
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify(cases));
  console.log(`${cases.length} cases written to ${out}`);
}

async function dump(casesFile: string, src: string, out: string): Promise<void> {
  const at = (m: string) => pathToFileURL(path.resolve(src, m)).href;
  const pageExtract = (await import(at('engine/page-extract.ts'))) as typeof import('../src/engine/page-extract.js');
  const exporter = (await import(at('engine/export.ts'))) as typeof import('../src/engine/export.js');
  const definitions = (await import(at('engine/definition.ts'))) as typeof import('../src/engine/definition.js');
  // Validation has a module of its own in later trees; an earlier tree has it in definition.ts.
  const validation = (
    fs.existsSync(path.resolve(src, 'engine/definition-validate.ts'))
      ? await import(at('engine/definition-validate.ts'))
      : definitions
  ) as typeof import('../src/engine/definition-validate.js');
  const cases = JSON.parse(fs.readFileSync(casesFile, 'utf8')) as Case[];
  const results: Record<string, unknown> = {};
  const text = async (format: 'csv' | 'json' | 'ndjson', records: never[], columns: string[]) => {
    let s = '';
    for await (const part of exporter.serializeRecords(format, records, columns)) s += part;
    return s;
  };
  for (const c of cases) {
    const def = c.definition as unknown as import('../src/engine/definition.js').AgentDefinition;
    const page = { finalUrl: c.url, body: Buffer.from(c.html), contentType: 'text/html; charset=utf-8' };
    const valid = validation.validateDefinition(def);
    const listed = pageExtract.extractListPage(page, { list: def.list, next: def.next, follow: def.follow } as never);
    const records = listed.items.map((i) => i.record) as never[];
    const detail = def.follow ? pageExtract.extractDetailPage(page, def.follow.fields).record : null;
    const columns = definitions.exportColumnsOf(def);
    results[c.id] = {
      valid,
      matches: listed.matches,
      nextUrl: listed.nextUrl,
      followUrls: listed.items.map((i) => i.followUrl),
      scripted: listed.scripted,
      parser: listed.parser,
      csv: await text('csv', records, columns),
      json: await text('json', records, columns),
      ndjson: await text('ndjson', records, columns),
      detail: detail
        ? await text(
            'csv',
            [detail as never],
            def.follow!.fields.map((f) => f.name),
          )
        : null,
    };
  }
  fs.writeFileSync(out, JSON.stringify(results, null, 1));
  console.log(`${cases.length} cases run on ${src}: ${out}`);
}

function diff(a: string, b: string): void {
  const left = JSON.parse(fs.readFileSync(a, 'utf8')) as Record<string, Record<string, unknown>>;
  const right = JSON.parse(fs.readFileSync(b, 'utf8')) as Record<string, Record<string, unknown>>;
  let same = 0;
  let bytes = 0;
  const differing: string[] = [];
  for (const id of new Set([...Object.keys(left), ...Object.keys(right)])) {
    const l = JSON.stringify(left[id]);
    const r = JSON.stringify(right[id]);
    if (l === r) {
      same++;
      bytes += l.length;
    } else differing.push(id);
  }
  console.log(`${same} cases identical (${bytes} bytes of results), ${differing.length} differ`);
  for (const id of differing.slice(0, 20)) console.log(`  differs: ${id}`);
  if (differing.length > 0) process.exitCode = 1;
}

const [mode, ...args] = process.argv.slice(2);
if (mode === 'cases') await makeCases(args[0]);
else if (mode === 'dump') await dump(args[0], args[1], args[2]);
else if (mode === 'diff') diff(args[0], args[1]);
else console.log('usage: compare-exports.ts cases <file> | dump <cases> <src> <out> | diff <a> <b>');
