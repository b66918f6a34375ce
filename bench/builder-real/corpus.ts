// The real-pages corpus as the bench, its in-process tuning check and the tests use it: the manifest, a
// local server of the saved pages, and a page's draft proposed and run in this process (no API).
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

/** Serves each page's saved bytes at /<id>/ ; anything else (the pages' assets) answers 404. */
export async function servePages(pages: RealPage[]): Promise<{ url: string; close(): Promise<void> }> {
  const bodies = new Map(pages.map((p) => [`/${p.id}/`, fs.readFileSync(pageFile(p))]));
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
