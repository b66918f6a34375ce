// Billing: the balance, the credit history (paged), the cost per Agent in a chosen range (paged,
// sortable by the API), and daily usage as a chart (one spending summary grouped by UTC day).
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { api, ok } from '../api/client';
import { BarChart, lastDays } from '../chart';
import { Empty, ErrorBox, Field, Pager, Table, fmtDate, isoDay, valueOf } from '../ui';

const HISTORY_PAGE = 20;
const COSTS_PAGE = 25;
const CHART_DAYS = 14;

export function BillingPage() {
  const credits = useQuery({ queryKey: ['billing', 'credits'], queryFn: () => ok(api.GET('/api/v1/billing/credits')) });
  const [range, setRange] = useState({ startDate: isoDay(-30), endDate: isoDay(0) });
  return (
    <>
      <h1>Billing</h1>
      <ErrorBox error={credits.error} />
      <div class="grid">
        <div class="stat">
          Available credits <b>{credits.data?.availableCredits.toLocaleString() ?? '…'}</b>
        </div>
      </div>
      <DailyUsage />
      <section aria-labelledby="costs">
        <h2 id="costs">Cost per Agent</h2>
        <form onSubmit={(e) => e.preventDefault()}>
          <Field label="From">
            <input
              type="date"
              value={range.startDate}
              onChange={(e) => setRange({ ...range, startDate: valueOf(e) })}
            />
          </Field>
          <Field label="To">
            <input type="date" value={range.endDate} onChange={(e) => setRange({ ...range, endDate: valueOf(e) })} />
          </Field>
        </form>
        <AgentCosts startDate={range.startDate} endDate={range.endDate} />
      </section>
      <History />
    </>
  );
}

function DailyUsage() {
  const days = lastDays(CHART_DAYS);
  const range = { startDate: days[0], endDate: days[days.length - 1] };
  const usage = useQuery({
    queryKey: ['billing', 'daily', range],
    queryFn: () =>
      ok(api.GET('/api/v1/billing/spending', { params: { query: { ...range, groupBy: 'day' } } })).then((s) =>
        (s.days ?? []).map((d) => ({ label: d.date, value: d.totalSpent })),
      ),
  });
  return (
    <section aria-labelledby="daily">
      <h2 id="daily">Daily usage (last {CHART_DAYS} days)</h2>
      <ErrorBox error={usage.error} />
      {usage.data && <BarChart title="Credits spent per day" points={usage.data} />}
    </section>
  );
}

function AgentCosts({ startDate, endDate }: { startDate: string; endDate: string }) {
  const [page, setPage] = useState(1);
  const [order, setOrder] = useState<0 | 1>(1);
  const costs = useQuery({
    queryKey: ['billing', 'agents', { startDate, endDate, page, order }],
    queryFn: () =>
      ok(
        api.GET('/api/v1/billing/agents', {
          params: {
            query: {
              startDate,
              endDate,
              pageIndex: page,
              recordsPerPage: COSTS_PAGE,
              sortColumn: 'cost',
              sortOrder: order,
            },
          },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <ErrorBox error={costs.error} />
      {costs.data && <p>Total cost in the range: {costs.data.totalCost.toLocaleString()} credits</p>}
      {costs.data?.agents.length === 0 && (
        <Empty>No Agent cost anything in this range. Run an Agent, or widen the range.</Empty>
      )}
      {!!costs.data?.agents.length && (
        <>
          <Table
            label="Cost per Agent"
            rowKey={(a) => a.agentId}
            rows={costs.data.agents}
            sort={{ column: 'cost', order, onSort: () => setOrder((o) => (1 - o) as 0 | 1) }}
            columns={[
              { label: 'Agent', render: (a) => <Link href={`/agents/${a.agentId}`}>{a.agentName}</Link> },
              { label: 'Cost', sort: 'cost', render: (a) => a.cost.toLocaleString() },
            ]}
          />
          <Pager page={page} size={COSTS_PAGE} total={costs.data.totalRecordCount} onPage={setPage} />
        </>
      )}
    </>
  );
}

function History() {
  const [page, setPage] = useState(1);
  const history = useQuery({
    queryKey: ['billing', 'history', page],
    queryFn: () =>
      ok(api.GET('/api/v1/billing/history', { params: { query: { pageIndex: page, recordsPerPage: HISTORY_PAGE } } })),
    placeholderData: keepPreviousData,
  });
  return (
    <section aria-labelledby="history">
      <h2 id="history">Credit history</h2>
      <ErrorBox error={history.error} />
      {history.data?.transactions.length === 0 && <Empty>No credit transactions yet.</Empty>}
      {!!history.data?.transactions.length && (
        <>
          <Table
            label="Credit history"
            rowKey={(t) => t.id}
            rows={history.data.transactions}
            columns={[
              { label: 'When', render: (t) => fmtDate(t.created) },
              { label: 'Type', render: (t) => t.transactionType },
              { label: 'Amount', render: (t) => t.amount.toLocaleString() },
              { label: 'Balance', render: (t) => t.balance.toLocaleString() },
              { label: 'Message', render: (t) => t.message },
            ]}
          />
          <Pager page={page} size={HISTORY_PAGE} total={history.data.totalCount} onPage={setPage} />
        </>
      )}
    </section>
  );
}
