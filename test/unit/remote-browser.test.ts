// The run process's browser sources and the worker's sessions, joined as over the IPC channel (every
// message through v8's serializer, as the `advanced` fork serialization does): results and bodies, log
// lines, a halt, an abort and the close of a Run's sessions reach the other side.
import v8 from 'node:v8';
import { describe, expect, it } from 'vitest';
import type { BrowserSourceSettings, FetchResult, LogFunction, PageSource } from '../../src/engine/index.js';
import { openRunBrowserSessions } from '../../src/jobs/browser-sessions.js';
import { remoteBrowserSources } from '../../src/jobs/remote-browser.js';
import { waitFor } from '../helpers/process.js';

/** A worker-side page source whose pages the test answers. */
class HeldSource implements PageSource {
  readonly gets: Array<{ url: string; canStart: () => boolean; answer: (r: FetchResult) => void }> = [];
  closed = false;
  receivedBytes = 0;
  constructor(
    readonly signal: AbortSignal,
    readonly log: LogFunction,
  ) {}
  get(url: string, opts?: { canStart?: () => boolean }): Promise<FetchResult> {
    return new Promise((answer) => this.gets.push({ url, canStart: opts?.canStart ?? (() => true), answer }));
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

const settings: BrowserSourceSettings = {
  definition: { startUrl: 'http://x/', render: 'browser', list: { selector: 'li', fields: [{ name: 'a' }] } },
  allowPrivateTargets: false,
};
const wire =
  <T>(deliver: (msg: T) => void) =>
  (msg: T) =>
    setImmediate(() => deliver(v8.deserialize(v8.serialize(msg)) as T));

function connect() {
  const sources: HeldSource[] = [];
  let sessions: ReturnType<typeof openRunBrowserSessions> | null = null;
  const child = remoteBrowserSources(wire((msg) => sessions!.handle(msg)));
  sessions = openRunBrowserSessions((_s, signal, log) => {
    const source = new HeldSource(signal, log);
    sources.push(source);
    return source;
  }, wire(child.receive));
  return { child, sessions, sources };
}

describe('browser pages over the run process channel', () => {
  it('a page, its Buffer body and the bytes received come back; log lines too', async () => {
    const { child, sources } = connect();
    const lines: string[] = [];
    const source = child.open(settings, new AbortController().signal, (level, m) => lines.push(`${level} ${m}`));
    const result = source.get('http://x/a');
    await waitFor(async () => sources[0]?.gets.length === 1 || null, 2_000, 10);
    sources[0].receivedBytes = 42;
    sources[0].log('Warning', 'render http://x/a retrying');
    const body = Buffer.from('<li>a</li>');
    sources[0].gets[0].answer({
      ok: true,
      page: { url: 'http://x/a', finalUrl: 'http://x/a', status: 200, contentType: 'text/html', body },
    });
    const got = await result;
    expect(got.ok && Buffer.isBuffer(got.page.body) && got.page.body.equals(body)).toBe(true);
    expect(source.receivedBytes).toBe(42);
    expect(lines).toEqual(['Warning render http://x/a retrying']);
    await source.close();
    expect(sources[0].closed).toBe(true);
  });

  it('a crawl that halts stops the attempts in the worker; an abort aborts the session there', async () => {
    const { child, sources } = connect();
    const abort = new AbortController();
    const source = child.open(settings, abort.signal, () => {});
    let halted = false;
    void source.get('http://x/a', { canStart: () => !halted });
    await waitFor(async () => sources[0]?.gets.length === 1 || null, 2_000, 10);
    expect(sources[0].gets[0].canStart()).toBe(true);
    halted = true;
    await waitFor(async () => sources[0].gets[0].canStart() === false || null, 2_000, 10);
    expect(sources[0].signal.aborted).toBe(false);
    abort.abort();
    await waitFor(async () => sources[0].signal.aborted || null, 2_000, 10);
  });

  it("closing a Run's sessions (its run process is gone) closes every source and aborts it", async () => {
    const { child, sessions, sources } = connect();
    const [a, b] = [
      child.open(settings, new AbortController().signal, () => {}),
      child.open(settings, new AbortController().signal, () => {}),
    ];
    void a.get('http://x/a');
    void b.get('http://x/b');
    await waitFor(async () => (sources.length === 2 && sources.every((s) => s.gets.length === 1)) || null, 2_000, 10);
    await sessions.close();
    expect(sources.map((s) => [s.closed, s.signal.aborted])).toEqual([
      [true, true],
      [true, true],
    ]);
  });
});
