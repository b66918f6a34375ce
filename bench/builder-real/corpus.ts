// The real-pages corpus as the bench, its in-process tuning check and the tests use it: the manifest, a
// local server of the saved pages, and a page's draft proposed and run in this process (no API).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { runExtraction } from '../../src/engine/crawler.js';
import { proposeDraft } from '../../src/services/builder/inference/draft.js';
import { createPageReader } from '../../src/services/builder/page-reader.js';
import type { RealPage } from './score.js';

const DIR = import.meta.dirname;

export function loadManifest(): RealPage[] {
  return (JSON.parse(fs.readFileSync(path.join(DIR, 'manifest.json'), 'utf8')) as { pages: RealPage[] }).pages;
}

/** Where a page's saved bytes are. */
export const pageFile = (page: RealPage) => path.join(DIR, 'pages', page.file);

/** A class or id attribute, its quote and its value (the bytes read as latin1: one character per byte). */
const CLASS_OR_ID = /(\s(?:class|id)\s*=\s*)(["'])([^"']*)\2/gi;

/** A comment, a script or a style (kept as they are), or else one tag. */
const UNTOUCHED_OR_TAG = /(<!--[\s\S]*?-->|<script\b[\s\S]*?<\/script\s*>|<style\b[\s\S]*?<\/style\s*>)|<[a-zA-Z][^>]*>/gi;

/** How class names and ids are served: as saved, hashed (generated-looking names) or renamed (stable words). */
export type ClassNames = 'kept' | 'hashed' | 'renamed';

const CONSONANTS = 'bdfgklmnprstvz';
const VOWELS = 'aeiou';

/** A made-up word for `name`: three syllables read off its hash ("kovira"), the same word for the same name. */
function madeUpWord(name: string): string {
  const digest = createHash('sha1').update(name).digest();
  let word = '';
  for (let i = 0; i < 3; i++) word += CONSONANTS[digest[2 * i] % CONSONANTS.length] + VOWELS[digest[2 * i + 1] % VOWELS.length];
  return word;
}

/**
 * The page with every class name and id replaced (the same name, the same replacement), the rest byte for
 * byte: `hashed` gives generated-looking names ("c601edf", as CSS-in-JS sites have), which the Builder
 * reads as unstable; `renamed` gives made-up words, stable but meaning nothing (a site's own vocabulary,
 * another language). Rules keyed to the corpus's class words fail on both; rules reading the structure and
 * the text do not.
 */
export function replaceClassNames(bytes: Buffer, how: Exclude<ClassNames, 'kept'>): Buffer {
  const replaced = (name: string) =>
    how === 'hashed' ? 'c' + createHash('sha1').update(name).digest('hex').slice(0, 6) : madeUpWord(name);
  const renamed = (tag: string) =>
    tag.replace(CLASS_OR_ID, (_all, attribute: string, quote: string, value: string) => {
      const names = value.split(/\s+/).filter((n) => n.length > 0);
      return attribute + quote + names.map(replaced).join(' ') + quote;
    });
  // Only inside tags: text in comments, scripts and styles that looks like an attribute (`<!-- id="x -->`)
  // is left alone, as a replacement running past the comment's end would change the page's tree.
  const text = bytes
    .toString('latin1')
    .replace(UNTOUCHED_OR_TAG, (part: string, untouched: string | undefined) => (untouched ? part : renamed(part)));
  return Buffer.from(text, 'latin1');
}

/**
 * Serves each page's saved bytes at /<id>/ (class names replaced unless `classNames` is `kept`, see
 * replaceClassNames); anything else (the pages' assets) answers 404.
 */
export async function servePages(
  pages: RealPage[],
  opts: { classNames?: ClassNames } = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const bodyOf = (p: RealPage) => {
    const saved = fs.readFileSync(pageFile(p));
    return !opts.classNames || opts.classNames === 'kept' ? saved : replaceClassNames(saved, opts.classNames);
  };
  const bodies = new Map(pages.map((p) => [`/${p.id}/`, bodyOf(p)]));
  const server = http.createServer((req, res) => {
    const body = bodies.get(req.url ?? '');
    // No charset in the header: the page's own <meta charset> says how its bytes are encoded.
    res.writeHead(body ? 200 : 404, { 'content-type': 'text/html' });
    res.end(body ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The Builder's draft for `page` (served at `base`), proposed and run with the real engine in this process. */
export async function draftInProcess(base: string, page: RealPage) {
  const reader = createPageReader({ allowPrivateTargets: true, requestTimeoutMs: 10_000, signal: new AbortController().signal });
  try {
    const read = await reader.read(`${base}/${page.id}/`);
    if (!read.ok) throw new Error(read.message);
    const proposal = await proposeDraft({ page: read.page, prompt: page.prompt, fetchPage: async () => null });
    const result = await runExtraction({ definition: proposal.definition, inputRows: [], allowPrivateTargets: true });
    return { proposal, records: result.sets.flatMap((s) => s.records) };
  } finally {
    await reader.close();
  }
}
