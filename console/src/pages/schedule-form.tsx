// The form of a Schedule, new or edited: CRON (with time zone), RunOnce or RunEvery, with the
// description and next five fire times asked of the API before saving (POST /api/v1/schedules/preview:
// the server's own rules, time zones and DST included).
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api/client';
import type { paths } from '../api/schema';
import { useAction, useSettled } from '../query';
import { BusyButton, ErrorBox, Field, fmtDate, valueOf } from '../ui';

/** Typing pauses this long before the preview is asked for. */
const PREVIEW_DELAY_MS = 300;
const PERIODS = ['', 'minutes', 'hours', 'days', 'weeks', 'months'];
type Schedule = Schemas['Schedule'];
interface Form {
  name: string;
  scheduleType: 1 | 2 | 3;
  cronExpression: string;
  timezone: string;
  startTime: string;
  runEveryCount: string;
  runEveryPeriod: string;
  isEnabled: boolean;
}
const EMPTY: Form = {
  name: '',
  scheduleType: 3,
  cronExpression: '0 6 * * *',
  timezone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC',
  startTime: '',
  runEveryCount: '1',
  runEveryPeriod: '3',
  isEnabled: true,
};

export function ScheduleForm({
  agentId,
  schedule,
  onDone,
}: {
  agentId: number;
  schedule: Schedule | null;
  onDone: () => void;
}) {
  const [f, setF] = useState<Form>(
    schedule
      ? {
          name: schedule.name ?? '',
          scheduleType: schedule.scheduleType || 3,
          cronExpression: schedule.schedule ?? '',
          timezone: schedule.timezone ?? 'UTC',
          startTime: schedule.startTime ? schedule.startTime.slice(0, 16) : '',
          runEveryCount: String(schedule.runEveryCount ?? 1),
          runEveryPeriod: String(schedule.runEveryPeriod ?? 3),
          isEnabled: schedule.isEnabled,
        }
      : EMPTY,
  );
  const set = (k: keyof Form) => (e: Event) => setF({ ...f, [k]: valueOf(e) });

  const timing = timingOf(f);
  const save = useAction(
    () => {
      const body = { name: f.name, isEnabled: f.isEnabled, ...timing };
      return schedule
        ? ok(
            api.PUT('/api/v1/agent/{agentId}/schedules/{scheduleId}', {
              params: { path: { agentId, scheduleId: schedule.id } },
              body,
            }),
          )
        : ok(api.POST('/api/v1/agent/{agentId}/schedules', { params: { path: { agentId } }, body }));
    },
    { invalidates: [['agent', agentId, 'schedules']], onSuccess: onDone },
  );
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate(undefined);
      }}
      aria-label={schedule ? 'Edit Schedule' : 'New Schedule'}
    >
      <Field label="Schedule name">
        <input required value={f.name} onInput={set('name')} />
      </Field>
      <Field label="Type">
        <select
          value={f.scheduleType}
          onChange={(e) => setF({ ...f, scheduleType: Number(valueOf(e)) as Form['scheduleType'] })}
        >
          <option value={3}>CRON</option>
          <option value={1}>RunOnce</option>
          <option value={2}>RunEvery</option>
        </select>
      </Field>
      {f.scheduleType === 3 && (
        <Field label="CRON expression">
          <input value={f.cronExpression} onInput={set('cronExpression')} />
        </Field>
      )}
      {f.scheduleType === 2 && (
        <>
          <Field label="Every">
            <input type="number" min={1} value={f.runEveryCount} onInput={set('runEveryCount')} />
          </Field>
          <Field label="Period">
            <select value={f.runEveryPeriod} onChange={set('runEveryPeriod')}>
              {PERIODS.slice(1).map((p, i) => (
                <option key={p} value={i + 1}>
                  {p}
                </option>
              ))}
            </select>
          </Field>
        </>
      )}
      {f.scheduleType !== 3 && (
        <Field label={f.scheduleType === 1 ? 'Run at' : 'First run at (optional)'}>
          <input type="datetime-local" value={f.startTime} onInput={set('startTime')} />
        </Field>
      )}
      <Field label="Time zone">
        <input value={f.timezone} onInput={set('timezone')} />
      </Field>
      <label class="row">
        <input
          type="checkbox"
          checked={f.isEnabled}
          onChange={(e) => setF({ ...f, isEnabled: e.currentTarget.checked })}
        />
        Enabled
      </label>
      <SchedulePreview timing={timing} />
      <BusyButton type="submit" busy={save.isPending}>
        Save Schedule
      </BusyButton>
      <button type="button" onClick={onDone}>
        Cancel
      </button>
      <ErrorBox error={save.error} />
    </form>
  );
}

type Timing = NonNullable<paths['/api/v1/schedules/preview']['post']['requestBody']>['content']['application/json'];

/** The timing fields of the form, as both the preview and the save send them. */
function timingOf(f: Form): Timing {
  const start = f.startTime && f.scheduleType !== 3 ? new Date(f.startTime) : null;
  return {
    scheduleType: f.scheduleType,
    timezone: f.timezone,
    cronExpression: f.scheduleType === 3 ? f.cronExpression : null,
    startTime: start && !Number.isNaN(start.getTime()) ? start.toISOString() : null,
    runEveryCount: f.scheduleType === 2 ? Number(f.runEveryCount) : null,
    runEveryPeriod: f.scheduleType === 2 ? Number(f.runEveryPeriod) : null,
  };
}

/** What the Schedule will do, asked of the API a moment after the last change of its timing. */
function SchedulePreview({ timing }: { timing: Timing }) {
  // The timing is compared by value (as JSON): a new object with the same fields asks nothing new.
  const asked = useSettled(JSON.stringify(timing), PREVIEW_DELAY_MS);
  const preview = useQuery({
    queryKey: ['schedules', 'preview', asked],
    queryFn: () => ok(api.POST('/api/v1/schedules/preview', { body: JSON.parse(asked) as Timing })),
    staleTime: Infinity,
    placeholderData: keepPreviousData,
  });
  const shown = preview.error ? { error: preview.error } : { preview: preview.data };
  return (
    <div class="preview" role="status" aria-label="Schedule preview">
      {shown.error && <p class="error">{shown.error.message}</p>}
      {shown.preview && (
        <>
          <p>{shown.preview.description}</p>
          <ol aria-label="Next fire times">
            {shown.preview.nextFireTimes.map((t) => (
              <li key={t}>{fmtDate(t)}</li>
            ))}
          </ol>
        </>
      )}
    </div>
  );
}
