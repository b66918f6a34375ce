// Webhooks (administrators): subscriptions, a new one (its signing secret shown once), the recent
// deliveries of one (paged), and redelivering a finished delivery.
import { useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api/client';
import { Empty, ErrorBox, Field, Pager, Table, fmtDate, useLoad, valueOf } from '../ui';

const PAGE_SIZE = 20;

export function WebhooksPage() {
  const list = useLoad(() => ok(api.GET('/api/v1/webhooks')), []);
  const [url, setUrl] = useState('');
  const [created, setCreated] = useState<Schemas['WebhookWithSecret']>();
  const [open, setOpen] = useState<number>();
  const [error, setError] = useState<Error>();
  async function create(e: SubmitEvent) {
    e.preventDefault();
    setError(undefined);
    try {
      setCreated(await ok(api.POST('/api/v1/webhooks', { body: { url, eventTypes: ['*'] } })));
      setUrl('');
      list.reload();
    } catch (err) {
      setError(err as Error);
    }
  }
  return (
    <>
      <h1>Webhooks</h1>
      <form onSubmit={create}>
        <Field label="Endpoint URL">
          <input type="url" required value={url} onInput={(e) => setUrl(valueOf(e))} />
        </Field>
        <button type="submit">Subscribe to every event</button>
      </form>
      <ErrorBox error={error ?? list.error} />
      {created && (
        <p class="notice" role="status">
          Signing secret (shown once): <code class="secret">{created.secret}</code>
        </p>
      )}
      {list.data?.length === 0 && <Empty>No subscriptions. Add an endpoint URL above to receive Run events.</Empty>}
      {!!list.data?.length && (
        <Table
          label="Webhooks"
          rowKey={(w) => w.id}
          rows={list.data}
          columns={[
            { label: 'URL', render: (w) => w.url },
            { label: 'Events', render: (w) => w.eventTypes.join(', ') },
            {
              label: 'Enabled',
              render: (w) => (w.enabled ? 'yes' : `no${w.disabledReason ? ` (${w.disabledReason})` : ''}`),
            },
            {
              label: 'Deliveries',
              render: (w) => (
                <button type="button" onClick={() => setOpen(w.id)} aria-label={`Deliveries of ${w.url}`}>
                  Deliveries
                </button>
              ),
            },
          ]}
        />
      )}
      {open !== undefined && <Deliveries key={open} webhookId={open} />}
    </>
  );
}

function Deliveries({ webhookId }: { webhookId: number }) {
  const [page, setPage] = useState(1);
  const [error, setError] = useState<Error>();
  const list = useLoad(
    () =>
      ok(
        api.GET('/api/v1/webhooks/{webhookId}/deliveries', {
          params: { path: { webhookId }, query: { pageIndex: page, recordsPerPage: PAGE_SIZE } },
        }),
      ),
    [webhookId, page],
  );
  async function redeliver(deliveryId: number) {
    setError(undefined);
    try {
      await ok(
        api.POST('/api/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', {
          params: { path: { webhookId, deliveryId } },
        }),
      );
      list.reload();
    } catch (e) {
      setError(e as Error);
    }
  }
  return (
    <section aria-labelledby="deliveries">
      <h2 id="deliveries">Recent deliveries</h2>
      <ErrorBox error={error ?? list.error} />
      {list.data?.data.length === 0 && <Empty>No deliveries yet: they appear when events happen.</Empty>}
      {!!list.data?.data.length && (
        <>
          <Table
            label="Deliveries"
            rowKey={(d) => d.id}
            rows={list.data.data}
            columns={[
              { label: 'Event', render: (d) => d.eventType },
              { label: 'Status', render: (d) => d.status },
              { label: 'Attempts', render: (d) => d.attemptCount },
              { label: 'Created', render: (d) => fmtDate(d.created) },
              {
                label: 'Redeliver',
                render: (d) => (
                  <button type="button" onClick={() => redeliver(d.id)} aria-label={`Redeliver delivery ${d.id}`}>
                    Redeliver
                  </button>
                ),
              },
            ]}
          />
          <Pager page={page} size={PAGE_SIZE} total={list.data.total} onPage={setPage} />
        </>
      )}
    </section>
  );
}
