// In a run process: browser page sources that render in the worker's browser pool, over the process's
// IPC channel (one pool per worker, however many run processes it has). Each source is a session in the
// worker; an abort of the Run closes its pages there at once, and the session's log lines, proxy outcomes
// and hosts' Retry-After come back here (for the Run's log, evidence and host gate).
import type {
  BrowserSourceEvents,
  BrowserSourceFactory,
  FetchResult,
  GetOptions,
  LogFunction,
  PageSource,
} from '../engine/index.js';
import type { BrowserReply, BrowserRequest } from '../services/runs/run-protocol.js';

/** How often a request in flight checks whether the crawl has halted (a stop starts no further attempt). */
const HALT_POLL_MS = 100;

class RemotePageSource implements PageSource {
  #receivedBytes = 0;
  #nextRequest = 0;
  readonly #pending = new Map<number, { url: string; resolve: (result: FetchResult) => void; poll?: NodeJS.Timeout }>();
  #closed: (() => void) | null = null;
  #closing: Promise<void> | null = null;

  constructor(
    private readonly session: number,
    private readonly send: (msg: BrowserRequest) => void,
    private readonly signal: AbortSignal,
    private readonly log: LogFunction,
    private readonly events: BrowserSourceEvents | undefined,
    private readonly onClosed: () => void,
  ) {
    signal.addEventListener('abort', () => send({ type: 'browser:abort', session }), { once: true });
  }

  get receivedBytes(): number {
    return this.#receivedBytes;
  }

  get(url: string, opts?: GetOptions): Promise<FetchResult> {
    if (this.signal.aborted || opts?.canStart?.() === false || this.#closing) {
      return Promise.resolve({
        ok: false,
        failure: { url, kind: 'aborted', message: 'stopped before rendering', attempts: 0 },
      });
    }
    const request = ++this.#nextRequest;
    const canStart = opts?.canStart;
    return new Promise((resolve) => {
      const poll = canStart
        ? setInterval(() => {
            if (canStart()) return;
            clearInterval(poll);
            this.send({ type: 'browser:halt', session: this.session, request });
          }, HALT_POLL_MS)
        : undefined;
      this.#pending.set(request, { url, resolve, poll });
      this.send({
        type: 'browser:get',
        session: this.session,
        request,
        url,
        page: opts?.request,
        ...(opts?.listPage ? { listPage: true } : {}),
      });
    });
  }

  receive(msg: BrowserReply): void {
    if (msg.type === 'browser:log') return this.log(msg.level, msg.message);
    if (msg.type === 'browser:proxy') return this.events?.proxyOutcome?.(msg.label, msg.outcome);
    if (msg.type === 'browser:retry-after') return this.events?.retryAfter?.(msg.url, msg.ms);
    this.#receivedBytes = msg.receivedBytes;
    if (msg.type === 'browser:closed') {
      // Nothing more comes for this session: a request still waiting (none should) ends as aborted.
      for (const [request, pending] of this.#pending) {
        clearInterval(pending.poll);
        const failure = { url: pending.url, kind: 'aborted' as const, message: 'closed while rendering', attempts: 0 };
        pending.resolve({ ok: false, failure });
        this.#pending.delete(request);
      }
      this.onClosed();
      return this.#closed?.();
    }
    const pending = this.#pending.get(msg.request);
    if (!pending) return;
    this.#pending.delete(msg.request);
    clearInterval(pending.poll);
    pending.resolve(msg.result);
  }

  /** Resolves once the worker has closed the session's pages and browser context. */
  close(): Promise<void> {
    this.#closing ??= new Promise<void>((resolve) => {
      this.#closed = resolve;
      this.send({ type: 'browser:close', session: this.session });
    });
    return this.#closing;
  }
}

/** The run process's browser sessions: `open` is the engine's factory, `receive` takes the worker's replies. */
export function remoteBrowserSources(send: (msg: BrowserRequest) => void) {
  const sessions = new Map<number, RemotePageSource>();
  let nextSession = 0;
  const open: BrowserSourceFactory = (settings, signal, log, events) => {
    const session = ++nextSession;
    const source = new RemotePageSource(session, send, signal, log, events, () => sessions.delete(session));
    sessions.set(session, source);
    send({ type: 'browser:open', session, settings });
    return source;
  };
  return {
    open,
    receive(msg: BrowserReply): void {
      sessions.get(msg.session)?.receive(msg);
    },
  };
}
