// One Agent: its properties, Run now (run-now.tsx), the definition editor (the API's
// validation problems are shown as it returns them), versions with restore, input parameters
// (encrypted values arrive masked), its Schedules and its Runs, archive and unarchive.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { api, ok, type Schemas } from '../api/client';
import { useAction } from '../query';
import { RunNow } from './run-now';
import { BusyButton, Empty, ErrorBox, Field, Loading, Pager, StatusBadge, Table, fmtDate, valueOf } from '../ui';

const RUNS_PAGE = 10;

export function AgentPage({ agentId }: { agentId: number }) {
  const path = { agentId };
  const agent = useQuery({
    queryKey: ['agent', agentId],
    queryFn: () => ok(api.GET('/api/v1/agent/{agentId}', { params: { path } })),
  });
  const archive = useAction(
    (to: 'archive' | 'unarchive') =>
      ok(
        api.POST(to === 'archive' ? '/api/v1/agent/{agentId}/archive' : '/api/v1/agent/{agentId}/unarchive', {
          params: { path },
        }),
      ),
    { invalidates: [['agent', agentId], ['agents']] },
  );

  if (agent.error) return <ErrorBox error={agent.error} />;
  if (!agent.data) return <Loading loading />;
  const a = agent.data;
  return (
    <>
      <h1>{a.name}</h1>
      <ErrorBox error={archive.error} />
      <section aria-label="Agent">
        <dl class="props">
          <dt>Last Run</dt>
          <dd>
            <StatusBadge status={a.status} />
          </dd>
          <dt>Start URL</dt>
          <dd>{a.startUrl || '—'}</dd>
          <dt>Active version</dt>
          <dd>{a.version}</dd>
          <dt>Validation</dt>
          <dd>{['', 'Unknown', 'Invalid', 'Valid'][a.validationStatus]}</dd>
          <dt>Archived</dt>
          <dd>{a.isArchived ? 'yes' : 'no'}</dd>
        </dl>
        <div class="row">
          {a.isArchived ? (
            <BusyButton busy={archive.isPending} onClick={() => archive.mutate('unarchive')}>
              Unarchive
            </BusyButton>
          ) : (
            <BusyButton busy={archive.isPending} onClick={() => archive.mutate('archive')}>
              Archive
            </BusyButton>
          )}
        </div>
      </section>
      <RunNow agentId={agentId} />
      <Definition agentId={agentId} version={a.version} />
      <InputParameters agentId={agentId} version={a.version} />
      <AgentSchedules agentId={agentId} />
      <AgentRuns agentId={agentId} />
    </>
  );
}

function Definition({ agentId, version }: { agentId: number; version: number }) {
  const path = { agentId };
  const doc = useQuery({
    queryKey: ['agent', agentId, 'definition', version],
    queryFn: () => ok(api.GET('/api/v1/agent/{agentId}/definition', { params: { path } })),
  });
  const [text, setText] = useState<string | null>(null);
  const [invalid, setInvalid] = useState<Error>();
  const [saved, setSaved] = useState<string>();
  const shown = text ?? (doc.data ? JSON.stringify(doc.data.definition, null, 2) : '');
  const done = (message: string) => {
    setText(null);
    setSaved(message);
  };
  const save = useAction(
    (definition: Schemas['AgentDefinition']) =>
      ok(api.PUT('/api/v1/agent/{agentId}', { params: { path }, body: { definition } })),
    { invalidates: [['agent', agentId]], onSuccess: (updated) => done(`Saved as version ${updated.version}.`) },
  );
  const restore = useAction(
    (v: number) =>
      ok(
        api.POST('/api/v1/agent/{agentId}/version/{version}/restore', {
          params: { path: { agentId, version: v } },
          body: { content: `Restored from version ${v}` },
        }),
      ),
    {
      invalidates: [['agent', agentId]],
      onSuccess: (restored, v) => done(`Version ${v} restored as version ${restored.version}.`),
    },
  );
  const busy = save.isPending || restore.isPending;

  function submit(e: Event) {
    e.preventDefault();
    setInvalid(undefined);
    setSaved(undefined);
    try {
      save.mutate(JSON.parse(shown) as Schemas['AgentDefinition']);
    } catch (err) {
      setInvalid(new Error(`The definition is not valid JSON: ${(err as Error).message}`));
    }
  }
  return (
    <section aria-labelledby="definition">
      <h2 id="definition">Definition</h2>
      <ErrorBox error={doc.error} />
      <Problems problems={doc.data?.problems ?? []} />
      <form onSubmit={submit}>
        <Field label="Definition (JSON)">
          <textarea spellcheck={false} value={shown} onInput={(e) => setText(valueOf(e))} />
        </Field>
        <BusyButton type="submit" busy={busy}>
          Save definition
        </BusyButton>
      </form>
      <ErrorBox error={invalid ?? save.error ?? restore.error} />
      {saved && (
        <p class="notice" role="status">
          {saved}
        </p>
      )}
      <h2>Versions</h2>
      <VersionsTable
        agentId={agentId}
        active={version}
        busy={busy}
        onRestore={(v) => {
          setSaved(undefined);
          restore.mutate(v);
        }}
      />
    </section>
  );
}

/** The problems the API found in the active version (saved all the same). */
function Problems({ problems }: { problems: string[] }) {
  if (problems.length === 0) return null;
  return (
    <div class="error" role="status">
      <p>The active version has problems:</p>
      <ul>
        {problems.map((p) => (
          <li key={p}>{p}</li>
        ))}
      </ul>
    </div>
  );
}

function VersionsTable(props: {
  agentId: number;
  active: number;
  busy: boolean;
  onRestore: (version: number) => void;
}) {
  const versions = useQuery({
    queryKey: ['agent', props.agentId, 'versions', props.active],
    queryFn: () => ok(api.GET('/api/v1/agent/{agentId}/versions', { params: { path: { agentId: props.agentId } } })),
  });
  if (!versions.data) return <ErrorBox error={versions.error} />;
  return (
    <Table
      label="Versions"
      rowKey={(v) => v.version}
      rows={versions.data}
      columns={[
        { label: 'Version', render: (v) => v.version },
        { label: 'By', render: (v) => v.userName },
        { label: 'Created', render: (v) => fmtDate(v.created) },
        { label: 'Comments', render: (v) => v.comments },
        {
          label: 'Restore',
          render: (v) =>
            v.version === props.active ? (
              'active'
            ) : (
              <BusyButton
                busy={props.busy}
                onClick={() => props.onRestore(v.version)}
                label={`Restore version ${v.version}`}
              >
                Restore
              </BusyButton>
            ),
        },
      ]}
    />
  );
}

function InputParameters({ agentId, version }: { agentId: number; version: number }) {
  const params = useQuery({
    queryKey: ['agent', agentId, 'input-parameters', version],
    queryFn: () => ok(api.GET('/api/v1/agent/{agentId}/input-parameters', { params: { path: { agentId } } })),
  });
  return (
    <section aria-labelledby="input-parameters">
      <h2 id="input-parameters">Input parameters</h2>
      <ErrorBox error={params.error} />
      {params.data?.length === 0 && <Empty>This Agent's definition declares no input parameters.</Empty>}
      {!!params.data?.length && (
        <Table
          label="Input parameters"
          rowKey={(p) => p.name}
          rows={params.data}
          columns={[
            { label: 'Name', render: (p) => p.name },
            { label: 'Default', render: (p) => p.defaultValue ?? '' },
            { label: 'Encrypted', render: (p) => (p.encrypted ? 'yes (value hidden)' : 'no') },
            { label: 'Description', render: (p) => p.description ?? '' },
          ]}
        />
      )}
    </section>
  );
}

function AgentSchedules({ agentId }: { agentId: number }) {
  const list = useQuery({
    queryKey: ['agent', agentId, 'schedules'],
    queryFn: () => ok(api.GET('/api/v1/agent/{agentId}/schedules', { params: { path: { agentId } } })),
  });
  const rows = (list.data ?? []) as Schemas['Schedule'][];
  return (
    <section aria-labelledby="agent-schedules">
      <h2 id="agent-schedules">Schedules</h2>
      <ErrorBox error={list.error} />
      {list.data && rows.length === 0 && (
        <Empty>
          No Schedules. <Link href={`/schedules?agentId=${agentId}`}>Create one</Link>.
        </Empty>
      )}
      {rows.length > 0 && (
        <Table
          label="Schedules of this Agent"
          rowKey={(s) => s.id}
          rows={rows}
          columns={[
            {
              label: 'Name',
              render: (s) => <Link href={`/schedules?agentId=${agentId}`}>{s.name ?? `#${s.id}`}</Link>,
            },
            { label: 'When', render: (s) => s.localSchedule },
            { label: 'Next run', render: (s) => fmtDate(s.nextRunTime) },
            { label: 'Enabled', render: (s) => (s.isEnabled ? 'yes' : 'no') },
          ]}
        />
      )}
    </section>
  );
}

function AgentRuns({ agentId }: { agentId: number }) {
  const [page, setPage] = useState(1);
  const list = useQuery({
    queryKey: ['agent', agentId, 'runs', page],
    queryFn: () =>
      ok(
        api.GET('/api/v1/agent/{agentId}/runs', {
          params: { path: { agentId }, query: { pageIndex: page, recordsPerPage: RUNS_PAGE } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const data = list.data as { runs: Schemas['Run'][]; totalRecordCount: number } | undefined;
  return (
    <section aria-labelledby="agent-runs">
      <h2 id="agent-runs">Runs</h2>
      <ErrorBox error={list.error} />
      {data && data.runs.length === 0 && <Empty>No Runs yet: press Run now above.</Empty>}
      {data && data.runs.length > 0 && (
        <>
          <Table
            label="Runs of this Agent"
            rowKey={(r) => r.id}
            rows={data.runs}
            columns={[
              { label: 'Run', render: (r) => <Link href={`/runs/${agentId}/${r.id}`}>#{r.id}</Link> },
              { label: 'Status', render: (r) => <StatusBadge status={r.status} /> },
              { label: 'Started', render: (r) => fmtDate(r.startTime ?? r.created) },
              { label: 'Records', render: (r) => r.recordsExtracted },
            ]}
          />
          <Pager page={page} size={RUNS_PAGE} total={data.totalRecordCount} onPage={setPage} />
        </>
      )}
    </section>
  );
}
