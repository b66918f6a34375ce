// The messages of change tracking between a run process (which has no database) and its worker: a
// question about the Run's records, and its answer. Each carries a batch of records, never one.
import type { ChangesAsk } from './changes.service.js';

/**
 * Questions the worker answers itself, from what it tracked of the Run's records (run-changes-tracker.ts):
 * the marks of the records `from` to `from + count` in the order the Run gave them (`rest`: the JSON lines
 * of the records given after the last checkpoint, asked with the first window only; `total`: how many
 * records the Run gave), and whether every new and updated record is staged (`staged`).
 */
export type TrackerAsk = { op: 'marks'; from: number; count: number; rest: string; total: number } | { op: 'staged' };

export type ChangesRequest = { type: 'changes:ask'; request: number; ask: ChangesAsk | TrackerAsk };
export type ChangesReply =
  | { type: 'changes:answer'; request: number; ok: true; value: unknown }
  | { type: 'changes:answer'; request: number; ok: false; message: string };

/** A record's mark in a `marks` answer: one character per record. */
export const RecordMark = { New: 'n', Updated: 'u', Unchanged: 'c', Duplicate: 'd' } as const;
export type RecordMark = (typeof RecordMark)[keyof typeof RecordMark];

export const isChangesRequest = (msg: { type: string }): msg is ChangesRequest => msg.type === 'changes:ask';
export const isChangesReply = (msg: { type: string }): msg is ChangesReply => msg.type === 'changes:answer';
