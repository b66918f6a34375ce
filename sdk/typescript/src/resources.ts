// Schedules, Spaces, billing, analytics and webhooks: thin typed calls over the API's routes.
import type { CallOptions, Transport } from './http.js';
import { iteratePages, type PageQuery } from './pagination.js';
import type { components } from './openapi.js';
import type { BodyOf, Page, QueryOf, RunDiagnostics, Schedule, Space, Webhook, WebhookWithSecret } from './types.js';

type S = components['schemas'];

export class SchedulesClient {
  constructor(
    private readonly http: Transport,
    readonly agentId: number,
  ) {}

  private path(scheduleId?: number) {
    return `/api/v1/agent/${this.agentId}/schedules${scheduleId === undefined ? '' : `/${scheduleId}`}`;
  }

  async list(query: PageQuery = {}, opts: CallOptions = {}): Promise<Page<Schedule>> {
    const pageIndex = query.pageIndex ?? 1;
    const recordsPerPage = query.recordsPerPage ?? 100;
    const page = await this.http.json<S['SchedulePage']>({
      ...opts,
      method: 'GET',
      path: this.path(),
      query: { pageIndex, recordsPerPage },
    });
    return { items: page.schedules, totalRecordCount: page.totalRecordCount, pageIndex, recordsPerPage };
  }

  iterate(query: PageQuery = {}, opts: CallOptions = {}): AsyncGenerator<Schedule, void, undefined> {
    return iteratePages((pageIndex, recordsPerPage, o) => this.list({ pageIndex, recordsPerPage }, o), query, opts);
  }

  create(body: BodyOf<'createAgentSchedule'>, opts: CallOptions = {}): Promise<Schedule> {
    return this.http.json({ ...opts, method: 'POST', path: this.path(), body });
  }

  get(scheduleId: number, opts: CallOptions = {}): Promise<Schedule> {
    return this.http.json({ ...opts, method: 'GET', path: this.path(scheduleId) });
  }

  update(scheduleId: number, body: BodyOf<'updateAgentSchedule'>, opts: CallOptions = {}): Promise<Schedule> {
    return this.http.json({ ...opts, method: 'PUT', path: this.path(scheduleId), body });
  }

  async delete(scheduleId: number, opts: CallOptions = {}): Promise<void> {
    await this.http.send({ ...opts, method: 'DELETE', path: this.path(scheduleId) });
  }

  enable(scheduleId: number, opts: CallOptions = {}): Promise<Schedule> {
    return this.http.json({ ...opts, method: 'POST', path: `${this.path(scheduleId)}/enable` });
  }

  disable(scheduleId: number, opts: CallOptions = {}): Promise<Schedule> {
    return this.http.json({ ...opts, method: 'POST', path: `${this.path(scheduleId)}/disable` });
  }
}

export class SpacesClient {
  constructor(private readonly http: Transport) {}

  list(opts: CallOptions = {}): Promise<Space[]> {
    return this.http.json({ ...opts, method: 'GET', path: '/api/v1/spaces' });
  }

  create(body: BodyOf<'createSpace'>, opts: CallOptions = {}): Promise<Space> {
    return this.http.json({ ...opts, method: 'POST', path: '/api/v1/spaces', body });
  }

  get(spaceId: number, opts: CallOptions = {}): Promise<Space> {
    return this.http.json({ ...opts, method: 'GET', path: `/api/v1/spaces/${spaceId}` });
  }

  agents(spaceId: number, opts: CallOptions = {}): Promise<S['SpaceAgent'][]> {
    return this.http.json({ ...opts, method: 'GET', path: `/api/v1/spaces/${spaceId}/agents` });
  }

  addMember(spaceId: number, body: BodyOf<'addSpaceMember'>, opts: CallOptions = {}): Promise<S['SpaceMember']> {
    return this.http.json({ ...opts, method: 'POST', path: `/api/v1/spaces/${spaceId}/members`, body });
  }

  /** Starts every Agent of the Space; each result says whether its Agent started. */
  runAll(
    spaceId: number,
    body: BodyOf<'runAllAgentsInSpace'> = {},
    opts: CallOptions = {},
  ): Promise<S['RunAllResult']> {
    return this.http.json({ ...opts, method: 'POST', path: `/api/v1/spaces/${spaceId}/run-all`, body });
  }
}

export class BillingClient {
  constructor(private readonly http: Transport) {}

  credits(opts: CallOptions = {}): Promise<S['CreditsBalance']> {
    return this.http.json({ ...opts, method: 'GET', path: '/api/v1/billing/credits' });
  }

  history(query: PageQuery = {}, opts: CallOptions = {}): Promise<S['CreditHistory']> {
    return this.http.json({ ...opts, method: 'GET', path: '/api/v1/billing/history', query: { ...query } });
  }

  spending(query: QueryOf<'getSpendingSummary'> = {}, opts: CallOptions = {}): Promise<S['SpendingSummary']> {
    return this.http.json({ ...opts, method: 'GET', path: '/api/v1/billing/spending', query });
  }

  agentsUsage(query: QueryOf<'getAgentsUsage'>, opts: CallOptions = {}): Promise<S['AgentsCost']> {
    return this.http.json({ ...opts, method: 'GET', path: '/api/v1/billing/agents', query });
  }

  lowCreditsAlert(opts: CallOptions = {}): Promise<S['LowCreditsAlert']> {
    return this.http.json({ ...opts, method: 'GET', path: '/api/v1/billing/low-credits-alert' });
  }

  setLowCreditsAlert(body: BodyOf<'setLowCreditsAlert'>, opts: CallOptions = {}): Promise<S['LowCreditsAlert']> {
    return this.http.json({ ...opts, method: 'PUT', path: '/api/v1/billing/low-credits-alert', body });
  }
}

export class AnalyticsClient {
  constructor(private readonly http: Transport) {}

  runsSummary(query: QueryOf<'getRunsSummary'> = {}, opts: CallOptions = {}): Promise<S['RunsSummary']> {
    return this.http.json({ ...opts, method: 'GET', path: '/api/v1/analytics/runs/summary', query });
  }

  recordsSummary(query: QueryOf<'getRecordsSummary'> = {}, opts: CallOptions = {}): Promise<S['RecordsSummary']> {
    return this.http.json({ ...opts, method: 'GET', path: '/api/v1/analytics/records/summary', query });
  }

  upcomingSchedules(
    query: QueryOf<'getUpcomingSchedules'> = {},
    opts: CallOptions = {},
  ): Promise<S['UpcomingSchedule'][]> {
    return this.http.json({ ...opts, method: 'GET', path: '/api/v1/analytics/schedules/upcoming', query });
  }

  latestFailure(agentId: number, opts: CallOptions = {}): Promise<RunDiagnostics> {
    return this.http.json({ ...opts, method: 'GET', path: `/api/v1/analytics/agents/${agentId}/latest-failure` });
  }
}

export class WebhooksClient {
  constructor(private readonly http: Transport) {}

  list(opts: CallOptions = {}): Promise<Webhook[]> {
    return this.http.json({ ...opts, method: 'GET', path: '/api/v1/webhooks' });
  }

  /** Creates a webhook; the answer holds its signing secret, shown this once. */
  create(body: BodyOf<'createWebhook'>, opts: CallOptions = {}): Promise<WebhookWithSecret> {
    return this.http.json({ ...opts, method: 'POST', path: '/api/v1/webhooks', body });
  }

  get(webhookId: number, opts: CallOptions = {}): Promise<Webhook> {
    return this.http.json({ ...opts, method: 'GET', path: `/api/v1/webhooks/${webhookId}` });
  }

  update(webhookId: number, body: BodyOf<'updateWebhook'>, opts: CallOptions = {}): Promise<Webhook> {
    return this.http.json({ ...opts, method: 'PUT', path: `/api/v1/webhooks/${webhookId}`, body });
  }

  async delete(webhookId: number, opts: CallOptions = {}): Promise<void> {
    await this.http.send({ ...opts, method: 'DELETE', path: `/api/v1/webhooks/${webhookId}` });
  }

  rotateSecret(webhookId: number, opts: CallOptions = {}): Promise<WebhookWithSecret> {
    return this.http.json({ ...opts, method: 'POST', path: `/api/v1/webhooks/${webhookId}/rotate-secret` });
  }

  /** Sends a test event to the webhook now and answers how its endpoint replied. */
  test(webhookId: number, opts: CallOptions = {}): Promise<S['WebhookTestResult']> {
    return this.http.json({ ...opts, method: 'POST', path: `/api/v1/webhooks/${webhookId}/test` });
  }

  deliveries(webhookId: number, query: PageQuery = {}, opts: CallOptions = {}): Promise<S['WebhookDeliveryPage']> {
    return this.http.json({
      ...opts,
      method: 'GET',
      path: `/api/v1/webhooks/${webhookId}/deliveries`,
      query: { ...query },
    });
  }
}
