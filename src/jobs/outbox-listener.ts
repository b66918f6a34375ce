// Wakes the webhook relay the moment an event commits (the outbox trigger's NOTIFY), so a first attempt
// does not wait for the relay's next tick. Passes are coalesced: notifications that arrive during a pass
// give one more pass, never one each. Every worker listens; the relay's SKIP LOCKED claim keeps two
// workers from relaying one event twice.
import type { Logger } from 'pino';
import { listenForNotifications, type NotificationListener } from '../db/notifications.js';

export const WEBHOOK_OUTBOX_CHANNEL = 'webhook_outbox';

export function startOutboxListener(opts: {
  databaseUrl: string;
  relay: () => Promise<unknown>;
  log: Logger;
}): NotificationListener {
  let running: Promise<void> | null = null;
  let again = false;
  const relayNow = () => {
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        await opts.relay();
      } while (again);
    })()
      // The tick retries what a failed pass left; the failure itself is worth a line.
      .catch((err: Error) => opts.log.warn({ err: { message: err.message } }, 'webhook relay failed'))
      .finally(() => {
        running = null;
      });
  };
  const listener = listenForNotifications({
    databaseUrl: opts.databaseUrl,
    channel: WEBHOOK_OUTBOX_CHANNEL,
    onNotify: relayNow,
    onError: (err) => opts.log.warn({ err: { message: err.message } }, 'webhook outbox listener error'),
  });
  return {
    async close() {
      await listener.close();
      await running;
    },
  };
}
