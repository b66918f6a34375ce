// The Agent Builder session state machine (docs/api-contract.md §8.2): processing -> ready (a draft
// exists) -> completed (finished into an Agent); error; cancelled (by stop). Pure: callers apply
// these decisions to a row they hold locked.
import { ConflictError, ErrorCodes } from '../../lib/errors.js';

export const SessionStatus = {
  Processing: 'processing',
  Ready: 'ready',
  Completed: 'completed',
  Error: 'error',
  Cancelled: 'cancelled',
} as const;
export type SessionStatus = (typeof SessionStatus)[keyof typeof SessionStatus];

const conflict = (message: string) => new ConflictError(message, ErrorCodes.SESSION_STATE_CONFLICT);

function ended(status: string): string | null {
  if (status === SessionStatus.Completed) return 'it was finished into an Agent';
  if (status === SessionStatus.Cancelled) return 'it was stopped';
  if (status === SessionStatus.Error) return 'it ended with an error; start a new session';
  return null;
}

/** A message refines a ready draft; while a draft is being made the message must wait. */
export function assertCanMessage(sessionId: string, status: string): void {
  const why = ended(status);
  if (why) throw conflict(`Session ${sessionId} cannot take messages: ${why}.`);
  if (status === SessionStatus.Processing)
    throw conflict(
      `Session ${sessionId} is still working on its draft; wait for status 'ready' before sending a message.`,
    );
}

/** Finishing needs a ready draft. */
export function assertCanFinish(sessionId: string, status: string): void {
  const why = ended(status);
  if (why) throw conflict(`Session ${sessionId} cannot be finished: ${why}.`);
  if (status === SessionStatus.Processing)
    throw conflict(`Session ${sessionId} has no draft yet; wait for status 'ready' before finishing.`);
}

/**
 * Stop: processing or ready -> cancelled. Stopping a cancelled or errored session changes nothing
 * (204 again: nothing is left to release); stopping a completed one is a conflict.
 */
export function stopDecision(sessionId: string, status: string): 'cancel' | 'nothing' {
  if (status === SessionStatus.Completed)
    throw conflict(`Session ${sessionId} was already finished into an Agent; there is nothing to stop.`);
  if (status === SessionStatus.Processing || status === SessionStatus.Ready) return 'cancel';
  return 'nothing';
}

/** Statuses after which no event can follow: a long poll answers at once. */
export function isFinal(status: string): boolean {
  return status === SessionStatus.Completed || status === SessionStatus.Error || status === SessionStatus.Cancelled;
}
