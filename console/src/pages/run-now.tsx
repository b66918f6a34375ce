// Run now: an Agent's start options (parallelism, log level and mode, exclusivity, input parameters);
// a started Run opens its page.
import { useState } from 'preact/hooks';
import { useLocation } from 'wouter-preact';
import { api, ok, type Schemas } from '../api/client';
import { useAction } from '../query';
import { BusyButton, ErrorBox, Field, valueOf } from '../ui';

export function RunNow({ agentId }: { agentId: number }) {
  const [, navigate] = useLocation();
  const [parallelism, setParallelism] = useState('1');
  const [logLevel, setLogLevel] = useState<Schemas['LogLevel']>('Info');
  const [logMode, setLogMode] = useState<Schemas['LogMode']>('Text');
  const [isExclusive, setIsExclusive] = useState(true);
  const [inputParameters, setInputParameters] = useState('');
  const start = useAction(
    () =>
      ok(
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
      ),
    {
      invalidates: [['agent', agentId], ['runs']],
      onSuccess: (run) => navigate(`/runs/${agentId}/${(run as Schemas['Run']).id}`),
    },
  );
  return (
    <section aria-labelledby="run-now">
      <h2 id="run-now">Run now</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          start.mutate(undefined);
        }}
      >
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
        <BusyButton type="submit" busy={start.isPending}>
          Run now
        </BusyButton>
      </form>
      <ErrorBox error={start.error} />
    </section>
  );
}
