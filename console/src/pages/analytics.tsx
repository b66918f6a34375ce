// Analytics: Runs and records per day as two charts from one request (the records summary grouped by
// UTC day), and the failed Runs of the range with a link to each one's diagnosis.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter-preact';
import { api, ok } from '../api/client';
import { BarChart, lastDays } from '../chart';
import { Empty, ErrorBox, Table, fmtDate } from '../ui';

const DAYS = 14;

export function AnalyticsPage() {
  const days = lastDays(DAYS);
  // startDate is the first day's midnight; a date as endDate covers the whole of today.
  const range = { startDate: days[0], endDate: days[days.length - 1] };
  const daily = useQuery({
    queryKey: ['analytics', 'daily', range],
    queryFn: () =>
      ok(api.GET('/api/v1/analytics/records/summary', { params: { query: { ...range, groupBy: 'day' } } })).then(
        (s) => s.days ?? [],
      ),
  });
  const failed = useQuery({
    queryKey: ['analytics', 'failed', range],
    queryFn: () =>
      ok(api.GET('/api/v1/analytics/runs/summary', { params: { query: { ...range, includeDetails: true } } })),
  });
  const rows = failed.data?.failedRunDetails ?? [];
  return (
    <>
      <h1>Analytics</h1>
      <ErrorBox error={daily.error} />
      {daily.data && (
        <div class="grid">
          <section>
            <BarChart
              title={`Runs per day (last ${DAYS} days)`}
              points={daily.data.map((d) => ({ label: d.date, value: d.runCount }))}
            />
          </section>
          <section>
            <BarChart
              title={`Records extracted per day (last ${DAYS} days)`}
              points={daily.data.map((d) => ({ label: d.date, value: d.totalRecordsExtracted }))}
            />
          </section>
        </div>
      )}
      <section aria-labelledby="failed">
        <h2 id="failed">Failed Runs</h2>
        <ErrorBox error={failed.error} />
        {failed.data && rows.length === 0 && <Empty>No Run failed in the last {DAYS} days.</Empty>}
        {rows.length > 0 && (
          <Table
            label="Failed Runs"
            rowKey={(r) => r.runId}
            rows={rows}
            columns={[
              {
                label: 'Run',
                render: (r) => <Link href={`/runs/${r.agentId}/${r.runId}`}>#{r.runId} (diagnosis)</Link>,
              },
              { label: 'Agent', render: (r) => r.agentName },
              { label: 'Ended', render: (r) => fmtDate(r.endTime) },
              { label: 'Error', render: (r) => r.errorMessage },
            ]}
          />
        )}
      </section>
    </>
  );
}
