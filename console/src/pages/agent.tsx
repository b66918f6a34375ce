// One Agent: its properties, Run now (with the start options), the definition editor (the API's
// validation problems are shown as it returns them), versions with restore, input parameters
// (encrypted values arrive masked), its Schedules and its Runs, archive and unarchive.
import { useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { api, ok, type Schemas } from '../api/client';
import { Empty, ErrorBox, Field, Loading, Pager, StatusBadge, Table, fmtDate, useLoad, valueOf } from '../ui';

const RUNS_PAGE = 10;

export function AgentPage({ agentId }: { agentId: number }) {
  const path = { agentId };
  const agent = useLoad(() => ok(api.GET('/api/v1/agent/{agentId}', { params: { path } })), [agentId]);
  const [actionError, setActionError] = useState<Error>();

  async function act(fn: () => Promise<unknown>) {
    setActionError(undefined);
    try {
      await fn();
      agent.reload();
    } catch (e) {
      setActionError(e as Error);
    }
  }

  if (agent.error) return <ErrorBox error={agent.error} />;
  if (!agent.data) return <Loading loading />;
  const a = agent.data;
  return (
    <>
      <h1>{a.name}</h1>
      <ErrorBox error={actionError} />
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
            <button
              type="button"
              onClick={() => act(() => ok(api.POST('/api/v1/agent/{agentId}/unarchive', { params: { path } })))}
            >
              Unarchive
            </button>
          ) : (
            <button
              type="button"
              onClick={() => act(() => ok(api.POST('/api/v1/agent/{agentId}/archive', { params: { path } })))}
            >
              Archive
            </button>
          )}
        </div>
      </section>
      <RunNow agentId={agentId} />
      <Definition agentId={agentId} onSaved={agent.reload} version={a.version} />
      <InputParameters agentId={agentId} version={a.version} />
      <AgentSchedules agentId={agentId} />
      <AgentRuns agentId={agentId} />
    </>
  );
}

function RunNow({ agentId }: { agentId: number }) {
  const [, navigate] = useLocation();
  const [parallelism, setParallelism] = useState('1');
  const [logLevel, setLogLevel] = useState<Schemas['LogLevel']>('Info');
  const [logMode, setLogMode] = useState<Schemas['LogMode']>('Text');
  const [isExclusive, setIsExclusive] = useState(true);
  const [inputParameters, setInputParameters] = useState('');
  const [error, setError] = useState<Error>();
  async function start(e: Event) {
    e.preventDefault();
    setError(undefined);
    try {
      const run = await ok(
        api.POST('/api/v1/agent/{agentId}/start', {
          params: { path: { agentId } },
          body: {
            parallelism: Number(parallelism),
            logLevel,
            logMode,
            isExclusive,
            ...(inputParameters.trim() ? { inputParameters } : {}),
          },
        }),
      );
      navigate(`/runs/${agentId}/${(run as Schemas['Run']).id}`);
    } catch (err) {
      setError(err as Error);
    }
  }
  return (
    <section aria-labelledby="run-now">
      <h2 id="run-now">Run now</h2>
      <form onSubmit={start}>
        <Field label="Parallelism">
          <input type="number" min={1} max={64} value={parallelism} onInput={(e) => setParallelism(valueOf(e))} />
        </Field>
        <Field label="Log level">
          <select value={logLevel} onChange={(e) => setLogLevel(valueOf(e) as Schemas['LogLevel'])}>
            {['Info', 'Warning', 'Error', 'Fatal'].map((l) => (
              <option key={l}>{l}</option>
            ))}
          </select>
        </Field>
        <Field label="Log mode">
          <select value={logMode} onChange={(e) => setLogMode(valueOf(e) as Schemas['LogMode'])}>
            <option value="Text">Text</option>
            <option value="TextAndHtml">Text and HTML</option>
          </select>
        </Field>
        <label class="row">
          <input type="checkbox" checked={isExclusive} onChange={(e) => setIsExclusive(e.currentTarget.checked)} />
          Exclusive (no other Run of this Agent at the same time)
        </label>
        <Field label='Input parameters (JSON, "?name" encrypts)'>
          <input
            value={inputParameters}
            onInput={(e) => setInputParameters(valueOf(e))}
            placeholder='{"query": "shoes"}'
          />
        </Field>
        <button type="submit">Run now</button>
      </form>
      <ErrorBox error={error} />
    </section>
  );
}

function Definition({ agentId, version, onSaved }: { agentId: number; version: number; onSaved: () => void }) {
  const path = { agentId };
  const doc = useLoad(
    () => ok(api.GET('/api/v1/agent/{agentId}/definition', { params: { path } })),
    [agentId, version],
  );
  const versions = useLoad(
    () => ok(api.GET('/api/v1/agent/{agentId}/versions', { params: { path } })),
    [agentId, version],
  );
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<Error>();
  const [saved, setSaved] = useState<string>();
  const shown = text ?? (doc.data ? JSON.stringify(doc.data.definition, null, 2) : '');

  async function save(e: Event) {
    e.preventDefault();
    setError(undefined);
    setSaved(undefined);
    let definition: unknown;
    try {
      definition = JSON.parse(shown);
    } catch (err) {
      return setError(new Error(`The definition is not valid JSON: ${(err as Error).message}`));
    }
    try {
      const updated = await ok(
        api.PUT('/api/v1/agent/{agentId}', {
          params: { path },
          body: { definition: definition as Schemas['AgentDefinition'] },
        }),
      );
      setText(null);
      setSaved(`Saved as version ${updated.version}.`);
      onSaved();
    } catch (err) {
      setError(err as Error);
    }
  }
  async function restore(v: number) {
    setError(undefined);
    try {
      const restored = await ok(
        api.POST('/api/v1/agent/{agentId}/version/{version}/restore', {
          params: { path: { agentId, version: v } },
          body: { content: `Restored from version ${v}` },
        }),
      );
      setText(null);
      setSaved(`Version ${v} restored as version ${restored.version}.`);
      onSaved();
    } catch (err) {
      setError(err as Error);
    }
  }
  return (
    <section aria-labelledby="definition">
      <h2 id="definition">Definition</h2>
      <ErrorBox error={doc.error} />
      {doc.data && doc.data.problems.length > 0 && (
        <div class="error" role="status">
          <p>The active version has problems:</p>
          <ul>
            {doc.data.problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </div>
      )}
      <form onSubmit={save}>
        <Field label="Definition (JSON)">
          <textarea spellcheck={false} value={shown} onInput={(e) => setText(valueOf(e))} />
        </Field>
        <button type="submit">Save definition</button>
      </form>
      <ErrorBox error={error} />
      {saved && (
        <p class="notice" role="status">
          {saved}
        </p>
      )}
      <h2>Versions</h2>
      {versions.data && (
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
                v.version === version ? (
                  'active'
                ) : (
                  <button type="button" onClick={() => restore(v.version)} aria-label={`Restore version ${v.version}`}>
                    Restore
                  </button>
                ),
            },
          ]}
        />
      )}
    </section>
  );
}

function InputParameters({ agentId, version }: { agentId: number; version: number }) {
  const params = useLoad(
    () => ok(api.GET('/api/v1/agent/{agentId}/input-parameters', { params: { path: { agentId } } })),
    [agentId, version],
  );
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
  const list = useLoad(
    () => ok(api.GET('/api/v1/agent/{agentId}/schedules', { params: { path: { agentId } } })),
    [agentId],
  );
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
  const list = useLoad(
    () =>
      ok(
        api.GET('/api/v1/agent/{agentId}/runs', {
          params: { path: { agentId }, query: { pageIndex: page, recordsPerPage: RUNS_PAGE } },
        }),
      ),
    [agentId, page],
  );
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
