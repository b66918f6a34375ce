// Webhooks (administrators): subscriptions, a new one (its signing secret shown once), the recent
// deliveries of one (paged), and redelivering a finished delivery.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { api, ok } from '../api/client';
import { useAction } from '../query';
import { BusyButton, Empty, ErrorBox, Field, Pager, Table, fmtDate, valueOf } from '../ui';

const PAGE_SIZE = 20;

export function WebhooksPage() {
  const list = useQuery({ queryKey: ['webhooks'], queryFn: () => ok(api.GET('/api/v1/webhooks')) });
  const [url, setUrl] = useState('');
  const [open, setOpen] = useState<number>();
  const create = useAction(() => ok(api.POST('/api/v1/webhooks', { body: { url, eventTypes: ['*'] } })), {
    invalidates: [['webhooks']],
    onSuccess: () => setUrl(''),
  });
  const created = create.data;
  return (
    <>
      <h1>Webhooks</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate(undefined);
        }}
      >
        <Field label="Endpoint URL">
          <input type="url" required value={url} onInput={(e) => setUrl(valueOf(e))} />
        </Field>
        <BusyButton type="submit" busy={create.isPending}>
          Subscribe to every event
        </BusyButton>
      </form>
      <ErrorBox error={create.error ?? list.error} />
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
  const list = useQuery({
    queryKey: ['webhooks', webhookId, 'deliveries', page],
    queryFn: () =>
      ok(
        api.GET('/api/v1/webhooks/{webhookId}/deliveries', {
          params: { path: { webhookId }, query: { pageIndex: page, recordsPerPage: PAGE_SIZE } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const redeliver = useAction(
    (deliveryId: number) =>
      ok(
        api.POST('/api/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', {
          params: { path: { webhookId, deliveryId } },
        }),
      ),
    { invalidates: [['webhooks', webhookId, 'deliveries']] },
  );
  return (
    <section aria-labelledby="deliveries">
      <h2 id="deliveries">Recent deliveries</h2>
      <ErrorBox error={redeliver.error ?? list.error} />
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
                  <BusyButton
                    busy={redeliver.isPending && redeliver.variables === d.id}
                    onClick={() => redeliver.mutate(d.id)}
                    label={`Redeliver delivery ${d.id}`}
                  >
                    Redeliver
                  </BusyButton>
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
