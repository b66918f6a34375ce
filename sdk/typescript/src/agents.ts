// Agents: list, page through, create; one Agent: read, update, archive, versions, start and call.
import type { CallOptions, Transport } from './http.js';
import { iteratePages, type PageQuery } from './pagination.js';
import { AgentRunsClient, RunClient, type WaitOptions } from './runs.js';
import { SchedulesClient } from './resources.js';
import type { Agent, AgentVersion, BodyOf, Page, QueryOf, Run, SavedAgent } from './types.js';

/** Filters and sorting of the Agents list (its paging is set by `list` and `iterate`). */
export type AgentListQuery = Omit<QueryOf<'listAgents'>, 'pageIndex' | 'recordsPerPage'> & PageQuery;
/** Options of a start; a start through the SDK is always asynchronous. */
export type StartOptions = Omit<NonNullable<BodyOf<'startAgent'>>, 'isRunSynchronously'>;

export class AgentsClient {
  constructor(private readonly http: Transport) {}

  /** One page of the Agents the caller can read. */
  async list(query: AgentListQuery = {}, opts: CallOptions = {}): Promise<Page<Agent>> {
    const pageIndex = query.pageIndex ?? 1;
    const recordsPerPage = query.recordsPerPage ?? 100;
    const page = await this.http.json<{ agents: Agent[]; totalRecordCount: number }>({
      ...opts,
      method: 'GET',
      path: '/api/v1/agent/all',
      query: { ...query, pageIndex, recordsPerPage },
    });
    return { items: page.agents, totalRecordCount: page.totalRecordCount, pageIndex, recordsPerPage };
  }

  /** Every Agent matching the filters, fetched page by page. */
  iterate(query: AgentListQuery = {}, opts: CallOptions = {}): AsyncGenerator<Agent, void, undefined> {
    return iteratePages(
      (pageIndex, recordsPerPage, o) => this.list({ ...query, pageIndex, recordsPerPage }, o),
      query,
      opts,
    );
  }

  /** Creates an Agent in a Space from its definition. */
  create(body: BodyOf<'createAgent'>, opts: CallOptions = {}): Promise<SavedAgent> {
    return this.http.json<SavedAgent>({ ...opts, method: 'POST', path: '/api/v1/agent', body });
  }
}

export class AgentClient {
  constructor(
    private readonly http: Transport,
    readonly agentId: number,
  ) {}

  private get path() {
    return `/api/v1/agent/${this.agentId}`;
  }

  get(opts: CallOptions = {}): Promise<Agent> {
    return this.http.json<Agent>({ ...opts, method: 'GET', path: this.path });
  }

  /** Replaces the Agent's name, definition or Space (a new version when the definition changes). */
  update(body: BodyOf<'updateAgent'>, opts: CallOptions = {}): Promise<SavedAgent> {
    return this.http.json<SavedAgent>({ ...opts, method: 'PUT', path: this.path, body });
  }

  archive(opts: CallOptions = {}): Promise<Agent> {
    return this.http.json<Agent>({ ...opts, method: 'POST', path: `${this.path}/archive` });
  }

  unarchive(opts: CallOptions = {}): Promise<Agent> {
    return this.http.json<Agent>({ ...opts, method: 'POST', path: `${this.path}/unarchive` });
  }

  /** The Agent's saved versions. */
  versions(opts: CallOptions = {}): Promise<AgentVersion[]> {
    return this.http.json<AgentVersion[]>({ ...opts, method: 'GET', path: `${this.path}/versions` });
  }

  /**
   * Starts a Run and answers it queued. Not idempotent: it is repeated only after a 429 or a 503 with
   * Retry-After (then the API created no Run), never after a network error.
   */
  start(options: StartOptions = {}, opts: CallOptions = {}): Promise<Run> {
    return this.http.json<Run>({ ...opts, method: 'POST', path: `${this.path}/start`, body: options });
  }

  /** Starts a Run and waits until it is terminal (or `waitSecs` have passed): the Run as it is then. */
  async call(options: StartOptions = {}, wait: WaitOptions = {}): Promise<Run> {
    const run = await this.start(options, wait);
    return new RunClient(this.http, this.agentId, run.id).waitForFinish(wait);
  }

  /** The Agent's Runs, newest first. */
  runs(): AgentRunsClient {
    return new AgentRunsClient(this.http, this.agentId);
  }

  /** One of the Agent's Runs. */
  run(runId: number): RunClient {
    return new RunClient(this.http, this.agentId, runId);
  }

  /** The Agent's Schedules. */
  schedules(): SchedulesClient {
    return new SchedulesClient(this.http, this.agentId);
  }
}
