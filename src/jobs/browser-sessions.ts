// In the worker: the browser sessions of one executing Run, rendering its run process's pages in the
// worker's browser pool (so BROWSER_MAX_PAGES and BROWSER_MAX_RSS_MB bound the worker, not each run
// process). A session is one of the Run's browser page sources, with its own browser context; `close`
// ends them all when the run process is done, exited or killed, so no page outlives its Run.
import {
  CHROMIUM_PATH_HINT,
  type BrowserSourceFactory,
  type FetchResult,
  type LogLevel,
  type PageSource,
  type ProxyOutcome,
} from '../engine/index.js';
import type { BrowserReply, BrowserRequest } from '../services/runs/run-protocol.js';

interface Session {
  source: PageSource;
  abort: AbortController;
  /** Requests whose crawl halted: no further attempt starts. */
  halted: Set<number>;
}

/** `open` is null on a worker without Chromium (its run processes refuse browser Runs before asking). */
export function openRunBrowserSessions(open: BrowserSourceFactory | null, send: (msg: BrowserReply) => void) {
  const sessions = new Map<number, Session>();
  let closed = false;

  const end = async (session: number, s: Session) => {
    sessions.delete(session);
    s.abort.abort();
    await s.source.close();
  };

  return {
    handle(msg: BrowserRequest): void {
      const s = sessions.get(msg.session);
      switch (msg.type) {
        case 'browser:open': {
          if (!open || closed) return;
          const abort = new AbortController();
          const session = msg.session;
          const log = (level: LogLevel, message: string) => send({ type: 'browser:log', session, level, message });
          const events = {
            proxyOutcome: (label: string, outcome: ProxyOutcome) =>
              send({ type: 'browser:proxy', session, label, outcome }),
            retryAfter: (url: string, ms: number) => send({ type: 'browser:retry-after', session, url, ms }),
          };
          sessions.set(session, { source: open(msg.settings, abort.signal, log, events), abort, halted: new Set() });
          return;
        }
        case 'browser:get': {
          if (!s) {
            const message = open ? 'the browser session is closed' : `this worker cannot render: ${CHROMIUM_PATH_HINT}`;
            const result = {
              ok: false as const,
              failure: { url: msg.url, kind: 'aborted' as const, message, attempts: 0 },
            };
            return send({
              type: 'browser:result',
              session: msg.session,
              request: msg.request,
              result,
              receivedBytes: 0,
            });
          }
          const get = s.source.get(msg.url, {
            canStart: () => !s.halted.has(msg.request),
            request: msg.page,
            listPage: msg.listPage,
          });
          // A page source never throws for a failed page; should one throw, the page fails, not the worker.
          const settled = get.catch((err: unknown): FetchResult => ({
            ok: false,
            failure: { url: msg.url, kind: 'network', message: (err as Error)?.message ?? String(err), attempts: 1 },
          }));
          void settled.then((result) => {
            s.halted.delete(msg.request);
            send({
              type: 'browser:result',
              session: msg.session,
              request: msg.request,
              result,
              receivedBytes: s.source.receivedBytes,
            });
          });
          return;
        }
        case 'browser:halt':
          s?.halted.add(msg.request);
          return;
        case 'browser:abort':
          s?.abort.abort();
          return;
        case 'browser:close': {
          const receivedBytes = s?.source.receivedBytes ?? 0;
          void (s ? end(msg.session, s) : Promise.resolve()).then(() =>
            send({ type: 'browser:closed', session: msg.session, receivedBytes }),
          );
          return;
        }
      }
    },

    /** The run process is gone or done: every page and context of the Run closes. */
    async close(): Promise<void> {
      closed = true;
      await Promise.all([...sessions].map(([session, s]) => end(session, s)));
    },
  };
}
export type RunBrowserSessions = ReturnType<typeof openRunBrowserSessions>;
