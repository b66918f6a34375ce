// Analytics: Runs and records per day as charts (one summary request per day), and the failed Runs
// of the range with a link to each one's diagnosis.
import { Link } from 'wouter-preact';
import { api, ok } from '../api/client';
import { BarChart, lastDays } from '../chart';
import { Empty, ErrorBox, Table, fmtDate, useLoad } from '../ui';

const DAYS = 14;

export function AnalyticsPage() {
  const days = lastDays(DAYS);
  const daily = useLoad(
    () =>
      Promise.all(
        days.map(async (d) => {
          // One whole UTC day: the summaries count [startDate, endDate).
          const query = {
            startDate: `${d}T00:00:00.000Z`,
            endDate: new Date(Date.parse(d) + 86_400_000).toISOString(),
          };
          const [runs, records] = await Promise.all([
            ok(api.GET('/api/v1/analytics/runs/summary', { params: { query: { ...query, includeDetails: false } } })),
            ok(api.GET('/api/v1/analytics/records/summary', { params: { query } })),
          ]);
          return { day: d, runs: runs.totalRuns, records: records.totalRecordsExtracted };
        }),
      ),
    [],
  );
  const failed = useLoad(
    () =>
      ok(
        api.GET('/api/v1/analytics/runs/summary', { params: { query: { startDate: days[0], includeDetails: true } } }),
      ),
    [],
  );
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
              points={daily.data.map((d) => ({ label: d.day, value: d.runs }))}
            />
          </section>
          <section>
            <BarChart
              title={`Records extracted per day (last ${DAYS} days)`}
              points={daily.data.map((d) => ({ label: d.day, value: d.records }))}
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
