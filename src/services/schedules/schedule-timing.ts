// A Schedule's timing as a request sets it: the timing fields of a body applied over the stored ones, their
// validation (docs/api-contract.md §1 and §5), and the anchor of a RunEvery Schedule sent without a start.
import { ErrorCodes, ValidationError } from '../../lib/errors.js';
import type { ScheduleBody } from '../../schemas/schedules.js';
import { cronProblem, isValidTimeZone, nextFireAfter, ScheduleType, type ScheduleTiming } from './schedule-time.js';
import type { ScheduleRow } from './schedules.repository.js';

/** A RunOnce Schedule must be at least this far ahead (docs/api-contract.md §5.2 and §10). */
const RUN_ONCE_MIN_LEAD_MS = 60_000;

/** The timing fields of a Schedule (its row, or a timing being built). */
export function timingOf(s: ScheduleTiming): ScheduleTiming {
  return {
    scheduleType: s.scheduleType,
    cronExpression: s.cronExpression,
    timezone: s.timezone,
    startTime: s.startTime,
    runEveryCount: s.runEveryCount,
    runEveryPeriod: s.runEveryPeriod,
  };
}

/** A field as sent, or the stored value when the request did not send it. */
export const pick = <T>(sent: T | null | undefined, current: T | null): T | null =>
  sent === undefined ? current : sent;

/** Validates the resulting timing; `sent` says which timing fields the request carried. */
export function checkTiming(t: ScheduleTiming, sent: ScheduleBody, enabled: boolean, now: Date) {
  if (t.timezone !== null && !isValidTimeZone(t.timezone)) {
    throw new ValidationError(
      `timezone "${t.timezone}" is not an IANA time-zone name (e.g. Europe/Paris).`,
      ErrorCodes.SCHEDULE_INVALID_TIMEZONE,
    );
  }
  switch (t.scheduleType) {
    case ScheduleType.Cron: {
      if (!t.cronExpression)
        throw new ValidationError(
          'A CRON Schedule (scheduleType 3) needs a cronExpression.',
          ErrorCodes.SCHEDULE_MISSING_FIELD,
        );
      const problem = cronProblem(t.cronExpression);
      if (problem)
        throw new ValidationError(
          `cronExpression "${t.cronExpression}" is invalid: ${problem}.`,
          ErrorCodes.SCHEDULE_INVALID_CRON,
        );
      break;
    }
    case ScheduleType.RunOnce:
      if (!t.startTime)
        throw new ValidationError(
          'A RunOnce Schedule (scheduleType 1) needs a startTime.',
          ErrorCodes.SCHEDULE_MISSING_FIELD,
        );
      // A sent time must be a minute ahead; a stored one only matters if it would be enabled again.
      if ((sent.startTime !== undefined || enabled) && t.startTime.getTime() < now.getTime() + RUN_ONCE_MIN_LEAD_MS) {
        throw new ValidationError(
          'startTime of a RunOnce Schedule must be at least 1 minute in the future.',
          ErrorCodes.SCHEDULE_START_TIME_TOO_SOON,
        );
      }
      break;
    case ScheduleType.RunEvery:
      if (t.runEveryCount === null || t.runEveryPeriod === null) {
        throw new ValidationError(
          'A RunEvery Schedule (scheduleType 2) needs runEveryCount and runEveryPeriod.',
          ErrorCodes.SCHEDULE_MISSING_FIELD,
        );
      }
      if (t.runEveryCount < 1) throw new ValidationError('runEveryCount must be at least 1.');
      if (t.runEveryPeriod < 1 || t.runEveryPeriod > 5)
        throw new ValidationError('runEveryPeriod must be 1 (minutes), 2 (hours), 3 (days), 4 (weeks) or 5 (months).');
      if (sent.startTime && t.startTime && t.startTime <= now) {
        throw new ValidationError(
          'startTime of a RunEvery Schedule must be in the future.',
          ErrorCodes.SCHEDULE_START_TIME_IN_PAST,
        );
      }
      break;
  }
}

/** The timing fields of `body` applied over `current` (null on create). */
export function timingFrom(body: ScheduleBody, current: ScheduleRow | null): ScheduleTiming {
  return {
    scheduleType: body.scheduleType ?? current?.scheduleType ?? ScheduleType.None,
    cronExpression: pick(body.cronExpression, current?.cronExpression ?? null)?.trim() || null,
    timezone: pick(body.timezone, current?.timezone ?? null)?.trim() || null,
    startTime:
      body.startTime === undefined
        ? (current?.startTime ?? null)
        : body.startTime === null
          ? null
          : new Date(body.startTime),
    runEveryCount: pick(body.runEveryCount, current?.runEveryCount ?? null),
    runEveryPeriod: pick(body.runEveryPeriod, current?.runEveryPeriod ?? null),
  };
}

/** RunEvery without a start: the first run is one period from now (whole seconds), and later ones follow from it. */
export function anchorRunEvery(t: ScheduleTiming, now: Date): void {
  if (t.scheduleType !== ScheduleType.RunEvery || t.startTime) return;
  const anchor = new Date(now.getTime() - (now.getTime() % 1000));
  t.startTime = nextFireAfter({ ...t, startTime: anchor }, anchor);
}
