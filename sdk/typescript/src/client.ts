// The entry point: one client per base URL and credentials; resource clients are cheap views on it.
import { AgentClient, AgentsClient } from './agents.js';
import { BuilderClient } from './builder.js';
import { Transport, type ClientOptions } from './http.js';
import { AnalyticsClient, BillingClient, SchedulesClient, SpacesClient, WebhooksClient } from './resources.js';
import { RunClient } from './runs.js';

export class CloudExtractionClient {
  private readonly http: Transport;

  constructor(options: ClientOptions) {
    this.http = new Transport(options);
  }

  /** The Agents the caller can read: list, iterate, create. */
  agents(): AgentsClient {
    return new AgentsClient(this.http);
  }

  /** One Agent: read, update, archive, versions, start, call, its Runs and Schedules. */
  agent(agentId: number): AgentClient {
    return new AgentClient(this.http, agentId);
  }

  /** One Run of an Agent: status, waitForFinish, stop, kill, delete, files, downloadFile, diagnostics. */
  run(agentId: number, runId: number): RunClient {
    return new RunClient(this.http, agentId, runId);
  }

  /** An Agent's Schedules. */
  schedules(agentId: number): SchedulesClient {
    return new SchedulesClient(this.http, agentId);
  }

  spaces(): SpacesClient {
    return new SpacesClient(this.http);
  }

  billing(): BillingClient {
    return new BillingClient(this.http);
  }

  analytics(): AnalyticsClient {
    return new AnalyticsClient(this.http);
  }

  /** Webhook subscriptions (verify their deliveries with `verifyWebhook`). */
  webhooks(): WebhooksClient {
    return new WebhooksClient(this.http);
  }

  /** The Agent Builder. */
  builder(): BuilderClient {
    return new BuilderClient(this.http);
  }
}
