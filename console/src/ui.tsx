// Small shared pieces of every screen: loading data, tables, paging, errors, empty states, formats.
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from './api/client';

/** RunStatus names, by value (the API's RunStatus enum). */
export const RUN_STATUS = [
  'Invalid',
  'Running',
  'Exporting',
  'Starting',
  'Queuing',
  'Stopping',
  'Failure',
  'Failed',
  'Stopped',
  'Completed',
  'Success',
  'Skipped',
  'Waiting',
] as const;
/** Terminal statuses for polling (docs/api-contract.md: Completed, Success, Failure, Stopped, Skipped; Failed too). */
export const TERMINAL = new Set([6, 7, 8, 9, 10, 11]);

export const statusName = (s: number | null | undefined) => (s == null ? 'Never run' : (RUN_STATUS[s] ?? String(s)));

export function StatusBadge({ status }: { status: number | null | undefined }) {
  const kind = status === 10 || status === 9 ? 'ok' : status === 6 || status === 7 ? 'bad' : 'neutral';
  return <span class={`badge ${kind}`}>{statusName(status)}</span>;
}

export const fmtDate = (v: string | null | undefined) => (v ? new Date(v).toLocaleString() : '—');
export const fmtNumber = (v: number | null | undefined) => (v == null ? '—' : v.toLocaleString());

export interface Loaded<T> {
  data?: T;
  error?: Error;
  loading: boolean;
  reload: () => void;
}

/** Loads once per change of `deps`; the latest answer wins (an older slower one is ignored). */
export function useLoad<T>(fn: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    fn().then(
      (data) => live && setState({ data, loading: false }),
      (error: Error) => live && setState({ error, loading: false }),
    );
    return () => void (live = false);
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { ...state, reload };
}

export function ErrorBox({ error }: { error: Error | null | undefined }) {
  if (!error) return null;
  const problems = error instanceof ApiError ? error.problems : [];
  return (
    <div role="alert" class="error">
      <p>{error.message}</p>
      {problems.length > 0 && (
        <ul aria-label="Validation problems">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

export function Loading({ loading }: { loading: boolean }) {
  return loading ? (
    <p class="loading" role="status">
      Loading…
    </p>
  ) : null;
}

export interface Column<T> {
  label: string;
  render: (row: T) => ComponentChildren;
  /** A sortable column: its name for the API's sortColumn. */
  sort?: string;
}

export function Table<T>(props: {
  label: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string | number;
  sort?: { column: string; order: 0 | 1; onSort: (column: string) => void };
}) {
  const { sort } = props;
  return (
    <table aria-label={props.label}>
      <thead>
        <tr>
          {props.columns.map((c) => (
            <th
              key={c.label}
              scope="col"
              aria-sort={sort && c.sort === sort.column ? (sort.order === 0 ? 'ascending' : 'descending') : undefined}
            >
              {sort && c.sort ? (
                <button type="button" class="link" onClick={() => sort.onSort(c.sort!)}>
                  {c.label}
                  {c.sort === sort.column ? (sort.order === 0 ? ' ▲' : ' ▼') : ''}
                </button>
              ) : (
                c.label
              )}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.rows.map((r) => (
          <tr key={props.rowKey(r)}>
            {props.columns.map((c) => (
              <td key={c.label}>{c.render(r)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function Pager(props: { page: number; size: number; total: number; onPage: (page: number) => void }) {
  const pages = Math.max(1, Math.ceil(props.total / props.size));
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={props.page <= 1} onClick={() => props.onPage(props.page - 1)}>
        Previous page
      </button>
      <span>
        Page {props.page} of {pages} ({fmtNumber(props.total)} in all)
      </span>
      <button type="button" disabled={props.page >= pages} onClick={() => props.onPage(props.page + 1)}>
        Next page
      </button>
    </nav>
  );
}

/** A labelled form field: the label wraps the control, so every control has an accessible name. */
export function Field({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <label class="field">
      <span>{label}</span>
      {children}
    </label>
  );
}

/** The value of an input event's target. */
export const valueOf = (e: Event) => (e.currentTarget as HTMLInputElement).value;

/** ISO date (yyyy-mm-dd) of a day offset from today, in UTC. */
export const isoDay = (offsetDays = 0) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
