// The API side of webhooks: subscriptions (organization admins only), secret rotation, the test
// event, the delivery log and redelivery. Deliveries themselves run in the worker (delivery.service).
import type { Clock } from '../../lib/clock.js';
import { seal } from '../../lib/crypto.js';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors.js';
import type {
  WebhookBodyInput,
  WebhookDeliveryModel,
  WebhookModel,
  WebhookTestResult,
} from '../../schemas/webhooks.js';
import { requireAdmin } from '../identity/api-keys.service.js';
import type { Principal } from '../identity/principal.js';
import { describeRefusedAddress, refusalOf, type SaveTimePolicy } from '../public-target.js';
import type { AttemptSender } from './attempts.js';
import { pageOf } from '../../lib/paging.js';
import { newWebhookSecret, webhookMessageId } from './signing.js';
import type { WebhookInput, WebhookRow, WebhooksRepository } from './webhooks.repository.js';

/** After a rotation the previous secret keeps signing this long, so receivers can switch over. */
export const ROTATION_OVERLAP_MS = 24 * 3600_000;

export function toWebhookView(w: WebhookRow): WebhookModel {
  return {
    id: w.id,
    url: w.url,
    description: w.description,
    eventTypes: w.eventTypes as WebhookModel['eventTypes'],
    agentId: w.agentId,
    spaceId: w.spaceId,
    enabled: w.enabled,
    disabledReason: w.disabledReason,
    failingSince: w.failingSince,
    created: w.created,
    updated: w.updated,
  };
}

export function createWebhooksService(deps: {
  repo: WebhooksRepository;
  attempts: Pick<AttemptSender, 'sendOnce'>;
  clock: Clock;
  encryptionKey: Buffer;
  /** The SSRF rule for targets (ENGINE_ALLOW_PRIVATE_TARGETS); delivery checks them again (sender.ts). */
  targets: SaveTimePolicy;
}) {
  const { repo, clock } = deps;

  /** A target on a non-public address is refused when it is saved, naming the address's class. */
  async function requirePublicTarget(url: string): Promise<void> {
    const target = new URL(url);
    const refusal = await refusalOf(target, deps.targets, 'target');
    if (refusal) {
      throw new ValidationError(
        `body.url (${target.hostname}) resolves to ${describeRefusedAddress(refusal)}; webhook targets must be public addresses unless the operator sets ENGINE_ALLOW_PRIVATE_TARGETS=true.`,
      );
    }
  }

  async function input(principal: Principal, body: WebhookBodyInput): Promise<WebhookInput> {
    const i: WebhookInput = {
      url: body.url,
      description: body.description ?? '',
      eventTypes: body.eventTypes,
      agentId: body.agentId ?? null,
      spaceId: body.spaceId ?? null,
      enabled: body.enabled ?? true,
    };
    if (i.eventTypes.includes('*') && i.eventTypes.length > 1)
      throw new ValidationError('body.eventTypes: `*` stands alone.');
    await requirePublicTarget(i.url);
    const owned = await repo.filtersBelongTo(principal.organizationId, i);
    if (!owned.agent) throw new NotFoundError(`Agent ${i.agentId} was not found.`);
    if (!owned.space) throw new NotFoundError(`Space ${i.spaceId} was not found.`);
    return i;
  }

  async function find(principal: Principal, id: number): Promise<WebhookRow> {
    requireAdmin(principal);
    const w = await repo.find(principal.organizationId, id);
    if (!w) throw new NotFoundError(`Webhook ${id} was not found.`);
    return w;
  }

  return {
    async create(principal: Principal, body: WebhookBodyInput) {
      requireAdmin(principal);
      const secret = newWebhookSecret();
      const w = await repo.create(
        principal.organizationId,
        await input(principal, body),
        seal(deps.encryptionKey, secret),
      );
      return { ...toWebhookView(w), secret };
    },
    async list(principal: Principal): Promise<WebhookModel[]> {
      requireAdmin(principal);
      return (await repo.list(principal.organizationId)).map(toWebhookView);
    },
    async get(principal: Principal, id: number): Promise<WebhookModel> {
      return toWebhookView(await find(principal, id));
    },
    async update(principal: Principal, id: number, body: WebhookBodyInput): Promise<WebhookModel> {
      await find(principal, id);
      const w = await repo.update(principal.organizationId, id, await input(principal, body));
      if (!w) throw new NotFoundError(`Webhook ${id} was not found.`);
      return toWebhookView(w);
    },
    async remove(principal: Principal, id: number): Promise<void> {
      requireAdmin(principal);
      if (!(await repo.remove(principal.organizationId, id))) throw new NotFoundError(`Webhook ${id} was not found.`);
    },
    async rotateSecret(principal: Principal, id: number) {
      await find(principal, id);
      const secret = newWebhookSecret();
      const until = new Date(clock.now().getTime() + ROTATION_OVERLAP_MS);
      if (!(await repo.rotate(principal.organizationId, id, seal(deps.encryptionKey, secret), until)))
        throw new NotFoundError(`Webhook ${id} was not found.`);
      return { ...toWebhookView(await find(principal, id)), secret };
    },

    /** Sends a `webhook.test` event now (even to a disabled subscription) and answers with the attempt's outcome. */
    async test(principal: Principal, id: number): Promise<WebhookTestResult> {
      const w = await find(principal, id);
      const at = clock.now();
      const payload = {
        type: 'webhook.test',
        timestamp: at.toISOString(),
        data: { webhookId: w.id, message: 'A test event sent on request.' },
      };
      const { eventId, deliveryId } = await repo.createTestDelivery(principal.organizationId, w.id, payload, at);
      const { outcome, result } = await deps.attempts.sendOnce(w, deliveryId, eventId, payload);
      return {
        outcome: outcome === 'success' ? 'success' : 'failed',
        deliveryId,
        eventId: webhookMessageId(eventId),
        statusCode: result.statusCode,
        durationMs: result.durationMs,
        responseBody: result.responseBody,
        error: result.error,
        errorCode: result.errorCode,
      };
    },

    async deliveries(principal: Principal, id: number, q: { pageIndex?: number; recordsPerPage?: number }) {
      await find(principal, id);
      const { pageIndex, recordsPerPage, skip } = pageOf(q);
      const { total, rows } = await repo.listDeliveries(id, skip, recordsPerPage);
      const data: WebhookDeliveryModel[] = rows.map((d) => ({
        id: d.id,
        eventId: webhookMessageId(d.event.id),
        eventType: d.event.type,
        status: d.status as WebhookDeliveryModel['status'],
        attemptCount: d.attemptCount,
        attempts: d.attempts.map((a) => ({
          attempt: a.attempt,
          at: a.at,
          statusCode: a.statusCode,
          durationMs: a.durationMs,
          responseBody: a.responseBody,
          error: a.error,
          errorCode: a.errorCode,
        })),
        nextAttemptAt: d.status === 'pending' ? d.nextAttemptAt : null,
        finalReason: d.finalReason,
        created: d.created,
      }));
      return { total, pageIndex, recordsPerPage, data };
    },

    /** Puts a finished delivery back in line; the worker's relay picks it up within a second. */
    async redeliver(principal: Principal, id: number, deliveryId: number): Promise<void> {
      await find(principal, id);
      const r = await repo.reopen(id, deliveryId, clock.now());
      if (r === 'missing') throw new NotFoundError(`Delivery ${deliveryId} was not found.`);
      if (r === 'pending') throw new ConflictError(`Delivery ${deliveryId} is still being delivered.`);
    },
  };
}
export type WebhooksService = ReturnType<typeof createWebhooksService>;
