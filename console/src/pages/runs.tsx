// Runs: the organization-wide list (GET /api/v1/runs), newest first, with each Run's Agent by name,
// filtered (by status, a part of the Agent's name, Space, dates) and paged by the API.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { api, ok, type Schemas } from '../api/client';
import { useSettled } from '../query';
import { Empty, ErrorBox, Field, Loading, Pager, StatusBadge, StatusSelect, Table, fmtDate, valueOf } from '../ui';
import { SpaceSelect } from './agents';

const PAGE_SIZE = 25;
type Filters = Record<'status' | 'agentName' | 'spaceId' | 'startDate' | 'endDate', string>;

export function RunsPage() {
  const [page, setPage] = useState(1);
  const [f, setF] = useState<Filters>({ status: '', agentName: '', spaceId: '', startDate: '', endDate: '' });
  const agentName = useSettled(f.agentName.trim());
  const list = useQuery({
    queryKey: ['runs', page, { ...f, agentName }],
    queryFn: () =>
      ok(
        api.GET('/api/v1/runs', {
          params: {
            query: {
              pageIndex: page,
              recordsPerPage: PAGE_SIZE,
              ...(f.status ? { status: Number(f.status) } : {}),
              ...(agentName ? { agentName } : {}),
              ...(f.spaceId ? { spaceId: Number(f.spaceId) } : {}),
              ...(f.startDate ? { startDate: f.startDate } : {}),
              ...(f.endDate ? { endDate: f.endDate } : {}),
            },
          },
        }),
      ),
    // The rows stay while the next page or filter loads.
    placeholderData: keepPreviousData,
  });
  // With paging parameters the API answers a page object, not the plain array.
  const data = list.data as { runs: Schemas['RunListItem'][]; totalRecordCount: number } | undefined;
  const set = (k: keyof Filters) => (e: Event) => {
    setF({ ...f, [k]: valueOf(e) });
    setPage(1);
  };
  const filtered = Object.values(f).some(Boolean);
  return (
    <>
      <h1>Runs</h1>
      <RunFilters f={f} set={set} />
      <ErrorBox error={list.error} />
      <Loading loading={list.isPending} />
      {data && data.runs.length === 0 && (
        <Empty>
          {filtered ? 'No Run matches these filters.' : 'No Runs yet. Open an '}
          {!filtered && <Link href="/agents">Agent</Link>}
          {!filtered && ' and press Run now.'}
        </Empty>
      )}
      {data && data.runs.length > 0 && (
        <>
          <Table
            label="Runs"
            rowKey={(r) => r.id}
            rows={data.runs}
            columns={[
              { label: 'Run', render: (r) => <Link href={`/runs/${r.configId}/${r.id}`}>#{r.id}</Link> },
              { label: 'Agent', render: (r) => <Link href={`/agents/${r.configId}`}>{r.agentName}</Link> },
              { label: 'Status', render: (r) => <StatusBadge status={r.status} /> },
              { label: 'Started', render: (r) => fmtDate(r.startTime ?? r.created) },
              { label: 'Ended', render: (r) => fmtDate(r.endTime) },
              { label: 'Records', render: (r) => r.recordsExtracted },
              { label: 'Started by', render: (r) => r.startedBy },
            ]}
          />
          <Pager page={page} size={PAGE_SIZE} total={data.totalRecordCount} onPage={setPage} />
        </>
      )}
    </>
  );
}

function RunFilters({ f, set }: { f: Filters; set: (k: keyof Filters) => (e: Event) => void }) {
  return (
    <form role="search" onSubmit={(e) => e.preventDefault()}>
      <StatusSelect label="Status" value={f.status} onChange={set('status')} />
      <Field label="Agent name">
        <input type="search" maxLength={200} value={f.agentName} onInput={set('agentName')} />
      </Field>
      <SpaceSelect value={f.spaceId} onChange={set('spaceId')} />
      <Field label="From">
        <input type="date" value={f.startDate} onInput={set('startDate')} />
      </Field>
      <Field label="To">
        <input type="date" value={f.endDate} onInput={set('endDate')} />
      </Field>
    </form>
  );
}
