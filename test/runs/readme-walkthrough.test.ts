// README.md's Run walkthrough, run as a user pastes it: the shell block is read from README.md itself
// (so the two cannot drift) and run with bash, curl and jq against the API listening on a port, a real
// worker, and a local site with the markup of the walkthrough's public site. Only the four variables
// at the top of the block are replaced: the key, the Space, the API's address and the site.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useRunEnvironment } from '../helpers/runs.js';

const MARKER = '<!-- walkthrough: test/runs/readme-walkthrough.test.ts';
const BOOKS_PER_PAGE = 4;
const PAGES = 3;

/** The first ```sh block after the marker, without the list item's indentation. */
function walkthroughBlock(readme: string): string {
  const at = readme.indexOf(MARKER);
  expect(at, 'README.md has lost the walkthrough marker').toBeGreaterThan(-1);
  const fence = readme.slice(at).match(/\n( *)```sh\n([\s\S]*?)\n *```\n/);
  expect(fence, 'no ```sh block after the walkthrough marker').not.toBeNull();
  const indent = fence![1];
  return fence![2]
    .split('\n')
    .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
    .join('\n');
}

/** Replaces the `NAME=...` line of each variable, which must each appear exactly once. */
function substitute(block: string, values: Record<string, string>): string {
  let out = block;
  for (const [name, value] of Object.entries(values)) {
    const line = new RegExp(`^${name}=.*$`, 'gm');
    expect(block.match(line), `the block sets ${name} once`).toHaveLength(1);
    out = out.replace(line, `${name}='${value}'`);
  }
  return out;
}

function bookTitle(n: number): string {
  return `Book ${n}: A Light in the Attic`;
}

/** Pages shaped like books.toscrape.com's catalogue: `/`, then /catalogue/page-N.html. */
function startBookSite(): Promise<{ url: string; close(): Promise<void> }> {
  const pageHtml = (p: number) => {
    const books = Array.from({ length: BOOKS_PER_PAGE }, (_, i) => (p - 1) * BOOKS_PER_PAGE + i + 1)
      .map(
        (n) =>
          `<li><article class="product_pod"><h3><a href="book_${n}/index.html" title="${bookTitle(n)}">Book ${n}...</a></h3>` +
          `<div class="product_price"><p class="price_color">£${(10 + n).toFixed(2)}</p></div></article></li>`,
      )
      .join('\n');
    const next =
      p < PAGES ? `<li class="next"><a href="${p === 1 ? 'catalogue/' : ''}page-${p + 1}.html">next</a></li>` : '';
    return `<!DOCTYPE html><html><body><ol class="row">${books}</ol><ul class="pager">${next}</ul></body></html>`;
  };
  const server = http.createServer((req, res) => {
    const m = req.url === '/' ? ['', '1'] : req.url?.match(/^\/catalogue\/page-(\d+)\.html$/);
    const p = m ? Number(m[1]) : 0;
    if (p < 1 || p > PAGES) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pageHtml(p));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    ),
  );
}

function runBash(script: string, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // -e and pipefail: a step that fails fails the test instead of letting the next one run.
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe("README.md's Run walkthrough", () => {
  const h = useRunEnvironment();
  let site: Awaited<ReturnType<typeof startBookSite>>;
  let api: string;
  let dir: string;
  beforeAll(async () => {
    site = await startBookSite();
    api = await h.ctx.app.listen({ port: 0, host: '127.0.0.1' });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cxs-walkthrough-'));
  });
  afterAll(async () => {
    await site?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs as pasted: the Run ends Success, its CSV is saved as run-<id>.csv, the synchronous start answers records', async () => {
    const block = walkthroughBlock(fs.readFileSync('README.md', 'utf8'));
    const script = substitute(block, {
      KEY: h.org.apiKey,
      SPACE: String(h.org.spaceId),
      API: `${api}/api/v1`,
      SITE: site.url,
    });
    const res = await runBash(script, dir);
    expect(res.code, `${res.stdout}\n${res.stderr}`).toBe(0);
    expect(res.stderr).toBe('');

    const run = res.stdout.match(/^Run (\d+): status 10$/m);
    expect(run, res.stdout).not.toBeNull();
    const csv = fs
      .readFileSync(path.join(dir, `run-${run![1]}.csv`), 'utf8')
      .trim()
      .split(/\r?\n/);
    expect(csv[0]).toBe('title,price');
    expect(csv).toHaveLength(1 + PAGES * BOOKS_PER_PAGE);
    expect(csv).toContain(`${bookTitle(1)},£11.00`);
    expect(csv).toContain(`${bookTitle(PAGES * BOOKS_PER_PAGE)},£${(10 + PAGES * BOOKS_PER_PAGE).toFixed(2)}`);

    // The last command prints the synchronous Run's first two records.
    const sync = JSON.parse(res.stdout.slice(res.stdout.lastIndexOf('\n[')));
    expect(sync).toEqual([
      { title: bookTitle(1), price: '£11.00' },
      { title: bookTitle(2), price: '£12.00' },
    ]);
  }, 120_000);
});
