// Schedules of an Agent: list (paged), create and edit (CRON with timezone, RunOnce, RunEvery),
// enable, disable, delete. The form shows the description and next five fire times before saving
// (POST /api/v1/schedules/preview: the server's own rules, time zones and DST included); each saved
// Schedule shows its localSchedule and next five fire times (GET /api/v1/analytics/schedules/upcoming).
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { useSearch } from 'wouter-preact';
import { api, ok, type Schemas } from '../api/client';
import type { paths } from '../api/schema';
import { confirmed, useAction, useSettled } from '../query';
import { BusyButton, Empty, ErrorBox, Field, Pager, Table, fmtDate, valueOf } from '../ui';

const PAGE_SIZE = 20;
/** Typing pauses this long before the preview is asked for. */
const PREVIEW_DELAY_MS = 300;
const TYPES = { 3: 'CRON', 1: 'RunOnce', 2: 'RunEvery' } as const;
const PERIODS = ['', 'minutes', 'hours', 'days', 'weeks', 'months'];
/** How far ahead the next fire times are looked for. */
const UPCOMING_DAYS = 60;
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

export function SchedulesPage() {
  const fromUrl = new URLSearchParams(useSearch()).get('agentId') ?? '';
  const [agentId, setAgentId] = useState(fromUrl);
  const agents = useQuery({
    queryKey: ['agents', 'choice'],
    queryFn: () => ok(api.GET('/api/v1/agent/all', { params: { query: { pageIndex: 1, recordsPerPage: 100 } } })),
  });
  const page = agents.data as Schemas['AgentPage'] | undefined;
  return (
    <>
      <h1>Schedules</h1>
      <form onSubmit={(e) => e.preventDefault()}>
        <Field label="Agent">
          <select value={agentId} onChange={(e) => setAgentId(valueOf(e))}>
            <option value="">Choose an Agent</option>
            {page?.agents.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
        </Field>
      </form>
      <ErrorBox error={agents.error} />
      {agentId ? (
        <AgentSchedules key={agentId} agentId={Number(agentId)} />
      ) : (
        <Empty>Choose an Agent to see and add its Schedules.</Empty>
      )}
    </>
  );
}

function AgentSchedules({ agentId }: { agentId: number }) {
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<Schedule | 'new' | null>(null);
  const schedulesKey = ['agent', agentId, 'schedules'];
  const list = useQuery({
    queryKey: [...schedulesKey, page],
    queryFn: () =>
      ok(
        api.GET('/api/v1/agent/{agentId}/schedules', {
          params: { path: { agentId }, query: { pageIndex: page, recordsPerPage: PAGE_SIZE } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const upcoming = useQuery({
    // Read again with the list (its answer's time is part of the key): a saved change moves the times.
    queryKey: ['schedules', 'upcoming', list.dataUpdatedAt],
    queryFn: () =>
      ok(
        api.GET('/api/v1/analytics/schedules/upcoming', {
          params: { query: { endDate: new Date(Date.now() + UPCOMING_DAYS * 86_400_000).toISOString() } },
        }),
      ),
    enabled: list.isSuccess,
    placeholderData: keepPreviousData,
  });
  const data = list.data as Schemas['SchedulePage'] | undefined;
  const nextFive = (id: number) =>
    (upcoming.data ?? [])
      .filter((u) => u.scheduleId === id)
      .slice(0, 5)
      .map((u) => fmtDate(u.nextRunTime));

  const path = (scheduleId: number) => ({ params: { path: { agentId, scheduleId } } });
  const act = useAction(
    ({ id, to }: { id: number; to: 'enable' | 'disable' | 'delete' }) =>
      ok(
        to === 'delete'
          ? api.DELETE('/api/v1/agent/{agentId}/schedules/{scheduleId}', path(id))
          : api.POST(`/api/v1/agent/{agentId}/schedules/{scheduleId}/${to}`, path(id)),
      ),
    { invalidates: [schedulesKey] },
  );
  const busy = (id: number) => act.isPending && act.variables?.id === id;
  return (
    <section aria-label="Schedules of the Agent">
      <button type="button" class="primary" onClick={() => setEditing('new')}>
        New Schedule
      </button>
      {editing && (
        <ScheduleForm agentId={agentId} schedule={editing === 'new' ? null : editing} onDone={() => setEditing(null)} />
      )}
      <ErrorBox error={act.error ?? list.error} />
      {data?.schedules.length === 0 && <Empty>This Agent has no Schedule yet: press New Schedule.</Empty>}
      {!!data?.schedules.length && (
        <>
          <Table
            label="Schedules"
            rowKey={(s) => s.id}
            rows={data.schedules}
            columns={[
              { label: 'Name', render: (s) => s.name ?? `#${s.id}` },
              { label: 'Type', render: (s) => TYPES[s.scheduleType as 1 | 2 | 3] ?? 'None' },
              { label: 'Description', render: (s) => s.localSchedule },
              {
                label: 'Next five fire times',
                render: (s) => (
                  <ol aria-label={`Next fire times of ${s.name ?? s.id}`}>
                    {nextFive(s.id).map((t, i) => (
                      <li key={i}>{t}</li>
                    ))}
                  </ol>
                ),
              },
              { label: 'Enabled', render: (s) => (s.isEnabled ? 'yes' : 'no') },
              {
                label: 'Actions',
                render: (s) => (
                  <span class="row">
                    <button type="button" onClick={() => setEditing(s)}>
                      Edit
                    </button>
                    <BusyButton
                      busy={busy(s.id)}
                      onClick={() => act.mutate({ id: s.id, to: s.isEnabled ? 'disable' : 'enable' })}
                    >
                      {s.isEnabled ? 'Disable' : 'Enable'}
                    </BusyButton>
                    <BusyButton
                      busy={busy(s.id)}
                      danger
                      onClick={() =>
                        confirmed(`Delete the Schedule ${s.name ?? `#${s.id}`}? This cannot be undone.`, () =>
                          act.mutate({ id: s.id, to: 'delete' }),
                        )
                      }
                    >
                      Delete
                    </BusyButton>
                  </span>
                ),
              },
            ]}
          />
          <Pager page={page} size={PAGE_SIZE} total={data.totalRecordCount} onPage={setPage} />
        </>
      )}
    </section>
  );
}

function ScheduleForm({
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
