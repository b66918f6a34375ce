// The webhooks domain's core, built the same way by the API (services/webhooks/index.ts) and the
// worker (jobs/webhooks.processor.ts): the repository (also the outbox other domains write events
// to) and the one way an attempt is signed and sent.
import type { Config } from '../../config.js';
import type { Db } from '../../db/prisma.js';
import type { Clock } from '../../lib/clock.js';
import { createAttemptSender } from './attempts.js';
import { createWebhookSender } from './sender.js';
import { createWebhooksRepository } from './webhooks.repository.js';

export function wireWebhooksCore(db: Db, deps: { config: Config; clock: Clock }) {
  const repo = createWebhooksRepository(db);
  const sender = createWebhookSender({
    allowPrivateTargets: deps.config.engineAllowPrivateTargets,
    timeoutMs: deps.config.webhookAttemptTimeoutMs,
  });
  const attempts = createAttemptSender({ repo, sender, clock: deps.clock, encryptionKey: deps.config.encryptionKey });
  return { repo, attempts, close: () => sender.close() };
}
export type WebhooksCore = ReturnType<typeof wireWebhooksCore>;
