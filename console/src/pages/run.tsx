// One Run: its status polled every 2 s until it ends, stop and kill, its files with downloads, the
// last 1,000 lines of its log, the first 100 records of its export, and the diagnosis of a failure.
// The log is followed while the Run is active: its last 1,000 lines (GET .../log) every 2 s, so a
// 100,000-line log costs the page no more than 1,000 lines.
import { useEffect, useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { api, downloadFile, fetchFile, ok, type Schemas } from '../api/client';
import { PREVIEW_RECORDS, headText, parseRecords } from '../records';
import { Empty, ErrorBox, Loading, StatusBadge, TERMINAL, Table, fmtDate, useLoad } from '../ui';

const POLL_MS = 2000;
const LOG_LINES = 1000;
const EXPORT_TYPES = new Set(['Csv', 'Json', 'Ndjson']);

export function RunPage({ agentId, runId }: { agentId: number; runId: number }) {
  const path = { agentId, runId };
  const [run, setRun] = useState<Schemas['Run']>();
  const [error, setError] = useState<Error>();
  const [actionError, setActionError] = useState<Error>();
  const ended = run ? TERMINAL.has(run.status) : false;

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const r = await ok(api.GET('/api/v1/agent/{agentId}/run/{runId}/status', { params: { path } }));
        if (!live) return;
        setRun(r);
        setError(undefined);
        if (!TERMINAL.has(r.status)) timer = setTimeout(() => void poll(), POLL_MS);
      } catch (e) {
        if (!live) return;
        setError(e as Error);
        timer = setTimeout(() => void poll(), POLL_MS);
      }
    };
    void poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [agentId, runId]);

  const files = useLoad(
    () => ok(api.GET('/api/v1/agent/{agentId}/run/{runId}/files', { params: { path } })),
    [agentId, runId, ended],
  );

  async function control(kind: 'stop' | 'kill') {
    setActionError(undefined);
    try {
      const url =
        kind === 'stop' ? '/api/v1/agent/{agentId}/run/{runId}/stop' : '/api/v1/agent/{agentId}/run/{runId}/kill';
      setRun(await ok(api.POST(url, { params: { path } })));
    } catch (e) {
      setActionError(e as Error);
    }
  }

  if (!run) return error ? <ErrorBox error={error} /> : <Loading loading />;
  const exportFile = files.data?.find((f) => EXPORT_TYPES.has(f.fileType));
  return (
    <>
      <h1>
        Run #{run.id} of <Link href={`/agents/${agentId}`}>Agent {agentId}</Link>
      </h1>
      <ErrorBox error={error} />
      <section aria-label="Run status">
        <p>
          Status: <StatusBadge status={run.status} />{' '}
          <span aria-live="polite" class="sr-only">
            {ended ? 'finished' : 'updating'}
          </span>
        </p>
        <dl class="props">
          <dt>Started</dt>
          <dd>{fmtDate(run.startTime)}</dd>
          <dt>Ended</dt>
          <dd>{fmtDate(run.endTime)}</dd>
          <dt>Records extracted</dt>
          <dd>{run.recordsExtracted}</dd>
          <dt>Records exported</dt>
          <dd>{run.recordsExported}</dd>
          <dt>Started by</dt>
          <dd>{run.startedBy}</dd>
          {run.errorMessage && (
            <>
              <dt>Error</dt>
              <dd>{run.errorMessage}</dd>
            </>
          )}
          {run.progress && !ended && (
            <>
              <dt>Progress</dt>
              <dd>
                <code>{JSON.stringify(run.progress)}</code>
              </dd>
            </>
          )}
        </dl>
        {!ended && (
          <div class="row">
            <button type="button" onClick={() => control('stop')}>
              Stop
            </button>
            <button type="button" class="danger" onClick={() => control('kill')}>
              Kill
            </button>
          </div>
        )}
        <ErrorBox error={actionError} />
      </section>
      {(run.status === 6 || run.status === 7) && <Diagnosis agentId={agentId} runId={runId} />}
      <section aria-labelledby="files">
        <h2 id="files">Files</h2>
        <ErrorBox error={files.error} />
        {files.data?.length === 0 && (
          <Empty>{ended ? 'This Run produced no files.' : 'Files appear when the Run ends.'}</Empty>
        )}
        {!!files.data?.length && (
          <Table
            label="Files"
            rowKey={(f) => f.id}
            rows={files.data}
            columns={[
              { label: 'Name', render: (f) => f.name },
              { label: 'Type', render: (f) => f.fileType },
              { label: 'Size (bytes)', render: (f) => f.fileSize.toLocaleString() },
              {
                label: 'Download',
                render: (f) => (
                  <button
                    type="button"
                    onClick={() => downloadFile(agentId, runId, f.id, f.name).catch(setActionError)}
                  >
                    Download {f.name}
                  </button>
                ),
              },
            ]}
          />
        )}
      </section>
      {exportFile && <RecordsPreview agentId={agentId} runId={runId} file={exportFile} />}
      <section aria-labelledby="log">
        <h2 id="log">Log (last {LOG_LINES.toLocaleString()} lines)</h2>
        <LogTail agentId={agentId} runId={runId} ended={ended} />
      </section>
    </>
  );
}

function RecordsPreview({ agentId, runId, file }: { agentId: number; runId: number; file: Schemas['RunFile'] }) {
  const records = useLoad(
    async () => parseRecords(file.name, await headText(await fetchFile(agentId, runId, file.id))),
    [agentId, runId, file.id],
  );
  const columns = [...new Set(records.data?.flatMap((r) => Object.keys(r)) ?? [])];
  return (
    <section aria-labelledby="records">
      <h2 id="records">Records (first {PREVIEW_RECORDS})</h2>
      <ErrorBox error={records.error} />
      {records.data?.length === 0 && <Empty>The export holds no records.</Empty>}
      {!!records.data?.length && (
        <Table
          label="Records"
          rowKey={(r) => records.data!.indexOf(r)}
          rows={records.data}
          columns={columns.map((c) => ({
            label: c,
            render: (r: Record<string, unknown>) => (typeof r[c] === 'string' ? r[c] : JSON.stringify(r[c] ?? '')),
          }))}
        />
      )}
    </section>
  );
}

function LogTail({ agentId, runId, ended }: { agentId: number; runId: number; ended: boolean }) {
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (ended) return;
    const timer = setInterval(() => setTick((n) => n + 1), POLL_MS);
    return () => clearInterval(timer);
  }, [ended]);
  const log = useLoad(
    () =>
      ok(
        api.GET('/api/v1/agent/{agentId}/run/{runId}/log', {
          params: { path: { agentId, runId }, query: { lines: LOG_LINES } },
        }),
      ),
    // Read once more when the Run ends, for its last lines.
    [agentId, runId, tick, ended],
  );
  return (
    <>
      <ErrorBox error={log.error} />
      {log.data?.totalLines === 0 ? (
        <Empty>{ended ? 'The Run wrote no log.' : 'No log lines yet: they appear as the Run goes.'}</Empty>
      ) : (
        <pre class="log" tabIndex={0} aria-label="Run log">
          {log.data?.lines.join('\n')}
        </pre>
      )}
    </>
  );
}

function Diagnosis({ agentId, runId }: { agentId: number; runId: number }) {
  const d = useLoad(
    () =>
      ok(
        api.GET('/api/v1/analytics/agents/{agentId}/runs/{runId}/diagnostics', {
          params: { path: { agentId, runId } },
        }),
      ),
    [agentId, runId],
  );
  return (
    <section aria-labelledby="diagnosis">
      <h2 id="diagnosis">Diagnosis</h2>
      <ErrorBox error={d.error} />
      {d.data && (
        <>
          <p>{d.data.errorMessage}</p>
          <h3>Possible causes</h3>
          <ul>
            {d.data.possibleCauses.map((c) => (
              <li key={c}>{c}</li>
            ))}
          </ul>
          <h3>Suggested actions</h3>
          <ul>
            {d.data.suggestedActions.map((c) => (
              <li key={c}>{c}</li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
