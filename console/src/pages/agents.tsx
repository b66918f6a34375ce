// Agents: the server-paged, sortable, searchable list (GET /api/v1/agent/all with pageIndex), with the
// status of each Agent's last Run and a Space filter. Nothing is filtered or sorted in the browser.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { api, ok, type Schemas } from '../api/client';
import { useAction, useSettled } from '../query';
import {
  BusyButton,
  Empty,
  ErrorBox,
  Field,
  Loading,
  Pager,
  StatusSelect,
  StatusBadge,
  Table,
  fmtDate,
  valueOf,
  type Column,
} from '../ui';

const PAGE_SIZE = 25;
type Agent = Schemas['Agent'];
type SortColumn = 'name' | 'lastActivity' | 'created' | 'updated' | 'status' | 'configType';

/** A labelled choice of Space (or all of them), its value the Space id as text. */
export function SpaceSelect({ value, onChange }: { value: string; onChange: (e: Event) => void }) {
  const spaces = useSpaces();
  return (
    <Field label="Space">
      <select value={value} onChange={onChange}>
        <option value="">All Spaces</option>
        {spaces.data?.map((s) => (
          <option key={s.id} value={s.id}>
            {s.name}
          </option>
        ))}
      </select>
    </Field>
  );
}

export function useSpaces() {
  return useQuery({ queryKey: ['spaces'], queryFn: () => ok(api.GET('/api/v1/spaces')), staleTime: 60_000 });
}

interface AgentsQuery {
  page: number;
  search: string;
  spaceId: string;
  status: string;
  sort: { column: SortColumn; order: 0 | 1 };
}

/** One page of Agents as the API sorts and filters them; the rows stay while the next page loads. */
function useAgentsPage({ page, search, spaceId, status, sort }: AgentsQuery) {
  return useQuery({
    queryKey: ['agents', 'list', { page, search, spaceId, status, sort }],
    queryFn: () =>
      ok(
        api.GET('/api/v1/agent/all', {
          params: {
            query: {
              pageIndex: page,
              recordsPerPage: PAGE_SIZE,
              sortColumn: sort.column,
              sortOrder: sort.order,
              ...(search ? { name: search } : {}),
              ...(spaceId ? { spaceId: Number(spaceId) } : {}),
              ...(status ? { status: Number(status) } : {}),
            },
          },
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

export function AgentsPage() {
  const [page, setPage] = useState(1);
  const [name, setName] = useState('');
  const [spaceId, setSpaceId] = useState('');
  const [status, setStatus] = useState('');
  const [sort, setSort] = useState<{ column: SortColumn; order: 0 | 1 }>({ column: 'name', order: 0 });
  const spaces = useSpaces();
  const search = useSettled(name);
  const list = useAgentsPage({ page, search, spaceId, status, sort });
  const archive = useAction(
    (agentId: number) => ok(api.POST('/api/v1/agent/{agentId}/archive', { params: { path: { agentId } } })),
    { invalidates: [['agents']] },
  );
  // With paging parameters the API answers a page object (AgentPage), not the legacy array.
  const result = list.data as Schemas['AgentPage'] | undefined;
  const columns = agentColumns(spaces.data ?? [], archive);
  const filter = (set: (v: string) => void) => (e: Event) => {
    set(valueOf(e));
    setPage(1);
  };

  return (
    <>
      <h1>Agents</h1>
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <Field label="Search by name">
          <input type="search" value={name} onInput={filter(setName)} />
        </Field>
        <SpaceSelect value={spaceId} onChange={filter(setSpaceId)} />
        <StatusSelect label="Last Run status" value={status} onChange={filter(setStatus)} />
      </form>
      <ErrorBox error={archive.error ?? list.error} />
      <Loading loading={list.isPending} />
      {result && result.agents.length === 0 ? (
        <NoAgents filtered={Boolean(name || spaceId || status)} />
      ) : (
        result && (
          <>
            <Table
              label="Agents"
              columns={columns}
              rows={result.agents}
              rowKey={(a) => a.id}
              sort={{
                column: sort.column,
                order: sort.order,
                onSort: (c) => {
                  setSort((s) => ({
                    column: c as SortColumn,
                    order: s.column === c ? ((1 - s.order) as 0 | 1) : 0,
                  }));
                  setPage(1);
                },
              }}
            />
            <Pager page={page} size={PAGE_SIZE} total={result.totalRecordCount} onPage={setPage} />
          </>
        )
      )}
    </>
  );
}

/** The Agents table's columns; Archive is busy for the Agent being archived. */
function agentColumns(
  spaces: Schemas['Space'][],
  archive: { isPending: boolean; variables?: number; mutate: (agentId: number) => void },
): Column<Agent>[] {
  const spaceName = (id: number) => spaces.find((s) => s.id === id)?.name ?? `Space ${id}`;
  return [
    { label: 'Name', sort: 'name', render: (a) => <Link href={`/agents/${a.id}`}>{a.name}</Link> },
    { label: 'Space', render: (a) => spaceName(a.spaceId) },
    { label: 'Last Run', sort: 'status', render: (a) => <StatusBadge status={a.status} /> },
    { label: 'Last activity', sort: 'lastActivity', render: (a) => fmtDate(a.lastActivity) },
    { label: 'Version', render: (a) => a.version },
    { label: 'Updated', sort: 'updated', render: (a) => fmtDate(a.updated) },
    {
      // Archived Agents leave this list (the API hides them); their page unarchives them.
      label: 'Archive',
      render: (a) => (
        <BusyButton
          busy={archive.isPending && archive.variables === a.id}
          label={`Archive ${a.name}`}
          onClick={() => archive.mutate(a.id)}
        >
          Archive
        </BusyButton>
      ),
    },
  ];
}

function NoAgents({ filtered }: { filtered: boolean }) {
  if (filtered) return <Empty>No Agent matches these filters.</Empty>;
  return (
    <Empty>
      No Agents yet. Describe one to the <Link href="/builder">Builder</Link> or create one with POST /api/v1/agent.
    </Empty>
  );
}
