// The Agent Builder: start a session from a prompt, follow its events, refine, finish into an Agent.
import type { CallOptions, Transport } from './http.js';
import type { Agent, AgentBuilderEvent, AgentBuilderSession, BodyOf } from './types.js';

/** How long the server holds an events request when there is nothing new (BUILDER_EVENTS_WAIT_SECONDS). */
const EVENTS_HOLD_SECONDS = 30;

export class BuilderClient {
  constructor(private readonly http: Transport) {}

  /** Starts a session; follow it with `session(sessionId).events()`. */
  start(
    body: BodyOf<'startAgentBuilderSession'>,
    opts: CallOptions = {},
  ): Promise<{ success: true; sessionId: string }> {
    return this.http.json({ ...opts, method: 'POST', path: '/api/v1/agent-builder/start', body });
  }

  session(sessionId: string): BuilderSessionClient {
    return new BuilderSessionClient(this.http, sessionId);
  }
}

export class BuilderSessionClient {
  constructor(
    private readonly http: Transport,
    readonly sessionId: string,
  ) {}

  private get path() {
    return `/api/v1/agent-builder/${encodeURIComponent(this.sessionId)}`;
  }

  get(opts: CallOptions = {}): Promise<AgentBuilderSession> {
    return this.http.json({ ...opts, method: 'GET', path: this.path });
  }

  /**
   * The session's events after `lastEventIndex` as they are written (long-polled), ending once the
   * session has stopped processing (ready, completed, error or cancelled) and every event is read.
   */
  async *events(
    opts: CallOptions & { lastEventIndex?: number } = {},
  ): AsyncGenerator<AgentBuilderEvent, void, undefined> {
    let last = opts.lastEventIndex ?? 0;
    for (;;) {
      const page = await this.http.json<{ status: string; events: AgentBuilderEvent[] }>({
        ...opts,
        method: 'GET',
        path: `${this.path}/events`,
        query: { lastEventIndex: last },
        holdSeconds: EVENTS_HOLD_SECONDS,
      });
      for (const event of page.events) {
        last = Math.max(last, event.index);
        yield event;
      }
      if (page.status !== 'processing' && page.events.length === 0) return;
    }
  }

  /** Refines the ready draft; the session goes back to processing. */
  message(message: string, opts: CallOptions = {}): Promise<AgentBuilderSession> {
    return this.http.json({ ...opts, method: 'POST', path: `${this.path}/message`, body: { message } });
  }

  /** Creates the Agent from the ready draft. */
  finish(body: BodyOf<'finishAgentBuilderSession'> = {}, opts: CallOptions = {}): Promise<Agent> {
    return this.http.json({ ...opts, method: 'POST', path: `${this.path}/finish`, body });
  }

  async stop(opts: CallOptions = {}): Promise<void> {
    await this.http.send({ ...opts, method: 'POST', path: `${this.path}/stop` });
  }
}
