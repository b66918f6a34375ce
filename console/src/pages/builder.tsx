// Builder: a prompt and a list page URL start an Agent Builder session; its events are followed by
// long polling (the API waits for the next one); the draft's records are shown as a table; messages
// refine the draft; finish turns it into an Agent.
import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'wouter-preact';
import { api, ok, type Schemas } from '../api/client';
import { useAction } from '../query';
import { BusyButton, Empty, ErrorBox, Field, Table, valueOf } from '../ui';
import { useSpaces } from './agents';

type Session = Schemas['AgentBuilderSession'];
type Event = Schemas['AgentBuilderEvent'];

export function BuilderPage() {
  const [prompt, setPrompt] = useState('');
  const [url, setUrl] = useState('');
  const [spaceId, setSpaceId] = useState('');
  const spaces = useSpaces();
  const [session, setSession] = useState<Session>();
  const start = useAction(
    async () => {
      const { sessionId } = await ok(
        api.POST('/api/v1/agent-builder/start', {
          body: { prompt, ...(url ? { url } : {}), spaceId: Number(spaceId || spaces.data?.[0]?.id) },
        }),
      );
      return ok(api.GET('/api/v1/agent-builder/{sessionId}', { params: { path: { sessionId } } }));
    },
    { onSuccess: setSession },
  );
  return (
    <>
      <h1>Builder</h1>
      {!session && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            start.mutate(undefined);
          }}
        >
          <Field label="What to extract">
            <textarea required minLength={10} value={prompt} onInput={(e) => setPrompt(valueOf(e))} rows={3} />
          </Field>
          <Field label="List page URL">
            <input type="url" value={url} onInput={(e) => setUrl(valueOf(e))} />
          </Field>
          <Field label="Space of the new Agent">
            <select value={spaceId} onChange={(e) => setSpaceId(valueOf(e))}>
              {spaces.data?.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </select>
          </Field>
          <BusyButton type="submit" busy={start.isPending}>
            Start building
          </BusyButton>
        </form>
      )}
      <ErrorBox error={start.error} />
      {session && <SessionView initial={session} onReset={() => setSession(undefined)} />}
    </>
  );
}

function SessionView({ initial, onReset }: { initial: Session; onReset: () => void }) {
  const sessionId = initial.sessionId;
  const [, navigate] = useLocation();
  const [session, setSession] = useState(initial);
  const [message, setMessage] = useState('');
  const [name, setName] = useState('');

  const { events, error } = useSessionEvents(sessionId, setSession);

  const refine = useAction(
    () =>
      ok(api.POST('/api/v1/agent-builder/{sessionId}/message', { params: { path: { sessionId } }, body: { message } })),
    {
      onSuccess: (s) => {
        setSession(s);
        setMessage('');
      },
    },
  );
  const finish = useAction(
    () => ok(api.POST('/api/v1/agent-builder/{sessionId}/finish', { params: { path: { sessionId } }, body: { name } })),
    { invalidates: [['agents']], onSuccess: (done) => navigate(`/agents/${done.id}`) },
  );
  const submit = (action: { mutate: (v: undefined) => void }) => (e: SubmitEvent) => {
    e.preventDefault();
    action.mutate(undefined);
  };
  const preview = session.preview ?? [];
  const columns = [...new Set(preview.flatMap((r) => Object.keys(r)))];
  return (
    <section aria-label="Builder session">
      <p>
        Session status: <b>{session.status}</b>{' '}
        <button type="button" onClick={onReset}>
          New session
        </button>
      </p>
      {session.error && <p class="error">{session.error}</p>}
      <h2>Progress</h2>
      <ol aria-label="Progress" aria-live="polite">
        {events.map((ev) => (
          <li key={ev.index}>{ev.message}</li>
        ))}
      </ol>
      <h2>Draft records</h2>
      {preview.length === 0 ? (
        <Empty>{session.status === 'processing' ? 'Reading the page…' : 'The draft extracts no records yet.'}</Empty>
      ) : (
        <Table
          label="Draft records"
          rowKey={(r) => preview.indexOf(r)}
          rows={preview}
          columns={columns.map((c) => ({ label: c, render: (r: (typeof preview)[number]) => String(r[c] ?? '') }))}
        />
      )}
      {session.status === 'ready' && (
        <>
          <form onSubmit={submit(refine)}>
            <Field label="Refine the draft">
              <input required value={message} onInput={(e) => setMessage(valueOf(e))} />
            </Field>
            <BusyButton type="submit" busy={refine.isPending}>
              Send
            </BusyButton>
          </form>
          <form onSubmit={submit(finish)}>
            <Field label="Agent name">
              <input required value={name} onInput={(e) => setName(valueOf(e))} />
            </Field>
            <BusyButton type="submit" busy={finish.isPending}>
              Create the Agent
            </BusyButton>
          </form>
        </>
      )}
      <ErrorBox error={error ?? refine.error ?? finish.error} />
    </section>
  );
}

/**
 * The session's events, followed by long polling from the last one seen: each answer returns new
 * events at once or after the API's wait (a cursor-driven follow, so a loop, not a cached query).
 * The session is read again after new events, for its draft and preview.
 */
function useSessionEvents(sessionId: string, setSession: (s: Session) => void) {
  const [events, setEvents] = useState<Event[]>([]);
  const [error, setError] = useState<Error>();
  useEffect(() => {
    let live = true;
    let last = 0;
    const follow = async () => {
      while (live) {
        try {
          const r = await ok(
            api.GET('/api/v1/agent-builder/{sessionId}/events', {
              params: { path: { sessionId }, query: { lastEventIndex: last } },
            }),
          );
          if (!live) return;
          if (r.events.length) {
            last = r.events[r.events.length - 1].index;
            setEvents((old) => [...old, ...r.events]);
            setSession(await ok(api.GET('/api/v1/agent-builder/{sessionId}', { params: { path: { sessionId } } })));
          }
          if (r.status !== 'processing' && r.status !== 'ready') return;
          if (r.status === 'ready' && !r.events.length) await new Promise((res) => setTimeout(res, 1000));
        } catch (e) {
          if (live) setError(e as Error);
          return;
        }
      }
    };
    void follow();
    return () => void (live = false);
  }, [sessionId]);
  return { events, error };
}
