// The messages of change tracking between a run process (which has no database) and its worker: a
// question about the Run's records, and its answer. Each carries a batch of records, never one.
import type { ChangesAsk } from './changes.service.js';

export type ChangesRequest = { type: 'changes:ask'; request: number; ask: ChangesAsk };
export type ChangesReply =
  | { type: 'changes:answer'; request: number; ok: true; value: unknown }
  | { type: 'changes:answer'; request: number; ok: false; message: string };

export const isChangesRequest = (msg: { type: string }): msg is ChangesRequest => msg.type === 'changes:ask';
export const isChangesReply = (msg: { type: string }): msg is ChangesReply => msg.type === 'changes:answer';
