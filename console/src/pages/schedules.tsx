// Schedules of an Agent: list (paged), create and edit (schedule-form.tsx), enable, disable, delete
// (asks first). Each saved Schedule shows its localSchedule and next five fire times
// (GET /api/v1/analytics/schedules/upcoming).
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { useSearch } from 'wouter-preact';
import { api, ok, type Schemas } from '../api/client';
import { confirmed, useAction } from '../query';
import { BusyButton, Empty, ErrorBox, Field, Pager, Table, fmtDate, valueOf } from '../ui';
import { ScheduleForm } from './schedule-form';

const PAGE_SIZE = 20;
const TYPES = { 3: 'CRON', 1: 'RunOnce', 2: 'RunEvery' } as const;
/** How far ahead the next fire times are looked for. */
const UPCOMING_DAYS = 60;
type Schedule = Schemas['Schedule'];
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
  const data = list.data as Schemas['SchedulePage'] | undefined;
  const nextFive = useNextFireTimes(list.dataUpdatedAt, list.isSuccess);

  const path = (scheduleId: number) => ({ params: { path: { agentId, scheduleId } } });
  const act = useAction(
    ({ id, to }: { id: number; to: ScheduleAction }) =>
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
                  <ScheduleActions
                    schedule={s}
                    busy={busy(s.id)}
                    onEdit={() => setEditing(s)}
                    onAct={(to) => act.mutate({ id: s.id, to })}
                  />
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

/** Each Schedule's next five fire times (formatted), read again whenever the list was. */
function useNextFireTimes(listReadAt: number, enabled: boolean) {
  const upcoming = useQuery({
    // The list's read time is part of the key: a saved change moves the times.
    queryKey: ['schedules', 'upcoming', listReadAt],
    queryFn: () =>
      ok(
        api.GET('/api/v1/analytics/schedules/upcoming', {
          params: { query: { endDate: new Date(Date.now() + UPCOMING_DAYS * 86_400_000).toISOString() } },
        }),
      ),
    enabled,
    placeholderData: keepPreviousData,
  });
  return (id: number) =>
    (upcoming.data ?? [])
      .filter((u) => u.scheduleId === id)
      .slice(0, 5)
      .map((u) => fmtDate(u.nextRunTime));
}

type ScheduleAction = 'enable' | 'disable' | 'delete';

/** Edit, enable or disable, and delete (asks first) one Schedule. */
function ScheduleActions(props: {
  schedule: Schedule;
  busy: boolean;
  onEdit: () => void;
  onAct: (to: ScheduleAction) => void;
}) {
  const s = props.schedule;
  return (
    <span class="row">
      <button type="button" onClick={props.onEdit}>
        Edit
      </button>
      <BusyButton busy={props.busy} onClick={() => props.onAct(s.isEnabled ? 'disable' : 'enable')}>
        {s.isEnabled ? 'Disable' : 'Enable'}
      </BusyButton>
      <BusyButton
        busy={props.busy}
        danger
        onClick={() =>
          confirmed(`Delete the Schedule ${s.name ?? `#${s.id}`}? This cannot be undone.`, () => props.onAct('delete'))
        }
      >
        Delete
      </BusyButton>
    </span>
  );
}
