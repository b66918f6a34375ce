// RunStatus, the one list of a Run's statuses by name: the services' status machine reads it, and the
// OpenAPI description publishes it as the RunStatus schema (its names in x-enum-varnames), from which
// the console's named statuses are generated.
import { Type } from '@sinclair/typebox';

export const RunStatus = {
  Invalid: 0,
  Running: 1,
  Exporting: 2,
  Starting: 3,
  Queuing: 4,
  Stopping: 5,
  Failure: 6,
  Failed: 7,
  Stopped: 8,
  Completed: 9,
  Success: 10,
  Skipped: 11,
  Waiting: 12,
} as const;
export type RunStatusValue = (typeof RunStatus)[keyof typeof RunStatus];

const entries = Object.entries(RunStatus);

export const RunStatusSchema = Type.Unsafe<RunStatusValue>(
  Type.Integer({
    $id: 'RunStatus',
    enum: entries.map(([, v]) => v),
    'x-enum-varnames': entries.map(([k]) => k),
    description: `RunStatus: ${entries.map(([k, v]) => `${v} ${k}`).join(', ')}.`,
  }),
);
