// Webhook event types and their payloads `{ type, timestamp, data }`: data holds the Run as
// GET .../status returns it (plus its files once terminal), never an encrypted value; under 20 KB.
import type { RunFileModel } from '../../schemas/runs.js';
import type { BuilderSessionReadyData } from '../../schemas/webhook-events.js';
import type { SessionView } from '../builder/builder.service.js';
import { WEBHOOK_EVENT_TYPES } from '../../schemas/webhooks.js';
import { toRunView } from '../runs/runs.service.js';
import type { RunRow } from '../runs/runs.repository.js';
import { RunStatus } from '../runs/status-machine.js';
import type { SettlementStep } from '../settlement/settlement.service.js';
import type { WebhooksRepository } from './webhooks.repository.js';

export { WEBHOOK_EVENT_TYPES };
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The event of each terminal Run status. */
export const TERMINAL_EVENT: Partial<Record<number, WebhookEventType>> = {
  [RunStatus.Success]: 'run.succeeded',
  [RunStatus.Completed]: 'run.completed_with_errors',
  [RunStatus.Failure]: 'run.failed',
  [RunStatus.Stopped]: 'run.stopped',
  [RunStatus.Skipped]: 'run.skipped',
};

export const MAX_PAYLOAD_BYTES = 20 * 1024;

export interface WebhookPayload {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/** A Run event's payload; a files list that would pass 20 KB is cut and links to the full list. */
export function runPayload(type: string, at: Date, run: RunRow, files: RunFileModel[] | null): WebhookPayload {
  const view = toRunView(run);
  const payload = (list: RunFileModel[] | null, cut: boolean): WebhookPayload => ({
    type,
    timestamp: at.toISOString(),
    data: {
      ...view,
      errorCode: run.errorCode,
      ...(list ? { files: list } : {}),
      ...(cut ? { filesTruncated: true, filesUrl: `/api/v1/agent/${run.agentId}/run/${run.id}/files` } : {}),
    },
  });
  let kept = files;
  let p = payload(kept, false);
  while (kept && kept.length > 0 && Buffer.byteLength(JSON.stringify(p)) > MAX_PAYLOAD_BYTES) {
    kept = kept.slice(0, Math.floor(kept.length / 2));
    p = payload(kept, true);
  }
  return p;
}

/** builder.session.ready's data: a preview, then a draft, that would pass 20 KB is left out and linked. */
export function sessionReadyData(session: SessionView): BuilderSessionReadyData {
  const fits = (d: BuilderSessionReadyData) =>
    Buffer.byteLength(
      JSON.stringify({ type: 'builder.session.ready', timestamp: new Date(0).toISOString(), data: d }),
    ) <= MAX_PAYLOAD_BYTES;
  if (fits(session)) return session;
  const link = { sessionUrl: `/api/v1/agent-builder/${session.sessionId}` };
  const noPreview = { ...session, preview: null, previewTruncated: true as const, ...link };
  if (fits(noPreview)) return noPreview;
  return { ...noPreview, draft: null, draftTruncated: true as const };
}

/** Whether a subscription wants an event of `type` about a Run of `agentId` in `spaceId`. */
export function subscriptionMatches(
  sub: { eventTypes: string[]; agentId: number | null; spaceId: number | null },
  event: { type: string; agentId: number | null; spaceId: number | null },
): boolean {
  if (!sub.eventTypes.includes('*') && !sub.eventTypes.includes(event.type)) return false;
  if (sub.agentId !== null && sub.agentId !== event.agentId) return false;
  if (sub.spaceId !== null && sub.spaceId !== event.spaceId) return false;
  return true;
}

/**
 * The settlement step that puts a terminal Run's event, and credits.low when its debit crossed the
 * organization's threshold, in the outbox, in the transaction that settles it (after billing's debit).
 */
export function createWebhookSettlementStep(
  repo: Pick<WebhooksRepository, 'insertSettlementEventsSql' | 'hookedSql'>,
  defaultLowCreditsThreshold: string,
): SettlementStep {
  // Whether each organization had an enabled webhook when one of its Runs was last settled: a Run's end
  // foretells it so that it is settled in one round trip. A wrong guess (a webhook added or removed since)
  // is caught by the claim, and the Run is settled in two round trips, which sets the guess right.
  const hookedBefore = new Map<number, boolean>();
  const MAX_REMEMBERED = 10_000;
  return {
    name: 'webhooks',
    // Whether the organization has an enabled webhook is read by the claim statement: without one, the
    // events statement is not sent at all (most Runs; one statement fewer on each Run's path).
    atClaim: (claimed) => ({ read: repo.hookedSql(claimed.column('organizationId')) }),
    predictRead: (run) => ({ value: hookedBefore.get(run.organizationId) ?? false }),
    apply(run, _at, hooked) {
      if (hookedBefore.size >= MAX_REMEMBERED) hookedBefore.clear();
      hookedBefore.set(run.organizationId, hooked === true);
      if (hooked !== true) return;
      return {
        statement: repo.insertSettlementEventsSql({
          organizationId: run.organizationId,
          runId: run.id,
          type: TERMINAL_EVENT[run.status] ?? null,
          defaultThreshold: defaultLowCreditsThreshold,
        }),
      };
    },
  };
}
