// One Run: its status and the last 1,000 lines of its log, read together every 2 s until the Run ends
// (one refetchInterval, so a 100,000-line log costs the page no more than 1,000 lines), stop and kill,
// its files with downloads, the first 100 records of its export, and the diagnosis of a failure.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter-preact';
import { api, downloadFile, fetchFileHead, ok, type Schemas } from '../api/client';
import { PREVIEW_BYTES, PREVIEW_RECORDS, parseRecords } from '../records';
import { confirmed, useAction } from '../query';
import { BusyButton, Empty, ErrorBox, Loading, StatusBadge, Table, fmtDate, isFailure, isTerminal } from '../ui';

const POLL_MS = 2000;
const LOG_LINES = 1000;
const EXPORT_TYPES = new Set(['Csv', 'Json', 'Ndjson']);

const runKey = (agentId: number, runId: number) => ['run', agentId, runId];

/** "8 pages, 80 records, 0 errors so far" of a running Run. */
function progressText(p: NonNullable<Schemas['Run']['progress']>): string {
  const n = (v: number, one: string, many: string) => `${v.toLocaleString()} ${v === 1 ? one : many}`;
  return `${n(p.pageCount, 'page', 'pages')}, ${n(p.dataCount, 'record', 'records')}, ${n(p.errorCount, 'error', 'errors')} so far`;
}

export function RunPage({ agentId, runId }: { agentId: number; runId: number }) {
  const path = { agentId, runId };
  // The status first, then the log: a log read after the Run was seen ending holds its last lines.
  const live = useQuery({
    queryKey: runKey(agentId, runId),
    queryFn: async () => {
      const run = await ok(api.GET('/api/v1/agent/{agentId}/run/{runId}/status', { params: { path } }));
      const log = await ok(
        api.GET('/api/v1/agent/{agentId}/run/{runId}/log', { params: { path, query: { lines: LOG_LINES } } }),
      );
      return { run, log };
    },
    refetchInterval: (q) => (isTerminal(q.state.data?.run.status) ? false : POLL_MS),
  });
  const agent = useQuery({
    queryKey: ['agent', agentId],
    queryFn: () => ok(api.GET('/api/v1/agent/{agentId}', { params: { path: { agentId } } })),
  });
  const run = live.data?.run;
  const ended = isTerminal(run?.status);

  if (!run) return live.error ? <ErrorBox error={live.error} /> : <Loading loading />;
  const agentName = agent.data?.name ?? `Agent ${agentId}`;
  return (
    <>
      <h1>
        Run #{run.id} of <Link href={`/agents/${agentId}`}>{agentName}</Link>
      </h1>
      <ErrorBox error={live.error} />
      <RunStatusSection agentId={agentId} run={run} />
      {isFailure(run.status) && <Diagnosis agentId={agentId} runId={runId} />}
      <RunFiles agentId={agentId} runId={runId} ended={ended} />
      <section aria-labelledby="log">
        <h2 id="log">Log (last {LOG_LINES.toLocaleString()} lines)</h2>
        {live.data?.log.totalLines === 0 ? (
          <Empty>{ended ? 'The Run wrote no log.' : 'No log lines yet: they appear as the Run goes.'}</Empty>
        ) : (
          <pre class="log" tabIndex={0} aria-label="Run log">
            {live.data?.log.lines.join('\n')}
          </pre>
        )}
      </section>
    </>
  );
}

/** The Run's figures, its failure message (the one place it is shown), progress, stop and kill. */
function RunStatusSection({ agentId, run }: { agentId: number; run: Schemas['Run'] }) {
  const ended = isTerminal(run.status);
  const path = { agentId, runId: run.id };
  const control = useAction(
    (kind: 'stop' | 'kill') =>
      ok(
        api.POST(
          kind === 'stop' ? '/api/v1/agent/{agentId}/run/{runId}/stop' : '/api/v1/agent/{agentId}/run/{runId}/kill',
          { params: { path } },
        ),
      ),
    { invalidates: [runKey(agentId, run.id)] },
  );
  return (
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
            <dd>{progressText(run.progress)}</dd>
          </>
        )}
      </dl>
      {!ended && (
        <div class="row">
          <BusyButton busy={control.isPending} onClick={() => control.mutate('stop')}>
            Stop
          </BusyButton>
          <BusyButton
            busy={control.isPending}
            danger
            onClick={() =>
              confirmed(`Kill Run #${run.id}? A Run that is stopping is ended at once, without its export.`, () =>
                control.mutate('kill'),
              )
            }
          >
            Kill
          </BusyButton>
        </div>
      )}
      <ErrorBox error={control.error} />
    </section>
  );
}

/** The Run's files with downloads (read again when the Run ends), and the preview of its export. */
function RunFiles({ agentId, runId, ended }: { agentId: number; runId: number; ended: boolean }) {
  const files = useQuery({
    queryKey: [...runKey(agentId, runId), 'files', ended],
    queryFn: () => ok(api.GET('/api/v1/agent/{agentId}/run/{runId}/files', { params: { path: { agentId, runId } } })),
  });
  const download = useAction((f: Schemas['RunFile']) => downloadFile(agentId, runId, f.id, f.name));
  const exportFile = files.data?.find((f) => EXPORT_TYPES.has(f.fileType));
  return (
    <>
      <section aria-labelledby="files">
        <h2 id="files">Files</h2>
        <ErrorBox error={files.error ?? download.error} />
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
                  <BusyButton
                    busy={download.isPending && download.variables?.id === f.id}
                    onClick={() => download.mutate(f)}
                  >
                    Download {f.name}
                  </BusyButton>
                ),
              },
            ]}
          />
        )}
      </section>
      {exportFile && <RecordsPreview agentId={agentId} runId={runId} file={exportFile} />}
    </>
  );
}

function RecordsPreview({ agentId, runId, file }: { agentId: number; runId: number; file: Schemas['RunFile'] }) {
  const records = useQuery({
    queryKey: [...runKey(agentId, runId), 'preview', file.id],
    queryFn: async () => {
      const head = await fetchFileHead(agentId, runId, file.id, PREVIEW_BYTES);
      return parseRecords(file.name, head.text, head.complete);
    },
    staleTime: Infinity,
  });
  const rows = records.data ?? [];
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return (
    <section aria-labelledby="records">
      <h2 id="records">Records (first {PREVIEW_RECORDS})</h2>
      <ErrorBox error={records.error} />
      {records.data?.length === 0 && <Empty>The export holds no records.</Empty>}
      {rows.length > 0 && (
        <Table
          label="Records"
          rowKey={(r) => rows.indexOf(r)}
          rows={rows}
          columns={columns.map((c) => ({
            label: c,
            render: (r: Record<string, unknown>) => (typeof r[c] === 'string' ? r[c] : JSON.stringify(r[c] ?? '')),
          }))}
        />
      )}
    </section>
  );
}

/** Why the Run failed and what to do; its error message is shown once, in the status above. */
function Diagnosis({ agentId, runId }: { agentId: number; runId: number }) {
  const d = useQuery({
    queryKey: [...runKey(agentId, runId), 'diagnosis'],
    queryFn: () =>
      ok(
        api.GET('/api/v1/analytics/agents/{agentId}/runs/{runId}/diagnostics', {
          params: { path: { agentId, runId } },
        }),
      ),
  });
  return (
    <section aria-labelledby="diagnosis">
      <h2 id="diagnosis">Diagnosis</h2>
      <ErrorBox error={d.error} />
      {d.data && (
        <>
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
