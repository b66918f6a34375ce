// Small shared pieces of every screen: Run statuses, busy buttons, tables, paging, errors, empty states,
// formats.
import type { ComponentChildren } from 'preact';
import { ApiError } from './api/client';
import { RunStatus } from './api/enums';

/** RunStatus names by value, from the generated RunStatus of the API's description. */
const STATUS_NAMES = new Map<number, string>(Object.entries(RunStatus).map(([name, value]) => [value, name]));
/** The statuses for a filter's options, in the API's order. */
const RUN_STATUSES = Object.entries(RunStatus).map(([name, value]) => ({ name, value }));
/** Statuses a Run does not leave: polling ends there (Failed is one on its way to Failure). */
const TERMINAL = new Set<number>([
  RunStatus.Failure,
  RunStatus.Failed,
  RunStatus.Stopped,
  RunStatus.Completed,
  RunStatus.Success,
  RunStatus.Skipped,
]);
export const isTerminal = (s: number | undefined) => s !== undefined && TERMINAL.has(s);
export const isFailure = (s: number | undefined) => s === RunStatus.Failure || s === RunStatus.Failed;

export const statusName = (s: number | null | undefined) =>
  s == null ? 'Never run' : (STATUS_NAMES.get(s) ?? String(s));

export function StatusBadge({ status }: { status: number | null | undefined }) {
  const good = status === RunStatus.Success || status === RunStatus.Completed;
  const kind = good ? 'ok' : isFailure(status ?? undefined) ? 'bad' : 'neutral';
  return <span class={`badge ${kind}`}>{statusName(status)}</span>;
}

export const fmtDate = (v: string | null | undefined) => (v ? new Date(v).toLocaleString() : '—');
export const fmtNumber = (v: number | null | undefined) => (v == null ? '—' : v.toLocaleString());

/**
 * A button that cannot be pressed again while its action runs (`busy`): disabled, marked aria-busy,
 * and its label kept so it is found by the same name.
 */
export function BusyButton(props: {
  busy: boolean;
  children: ComponentChildren;
  onClick?: () => void;
  type?: 'button' | 'submit';
  danger?: boolean;
  label?: string;
}) {
  return (
    <button
      type={props.type ?? 'button'}
      class={props.danger ? 'danger' : undefined}
      disabled={props.busy}
      aria-busy={props.busy}
      aria-label={props.label}
      onClick={props.onClick}
    >
      {props.children}
    </button>
  );
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

/** A labelled choice of RunStatus (or any), its value the status number as text. */
export function StatusSelect(props: { label: string; value: string; onChange: (e: Event) => void }) {
  return (
    <Field label={props.label}>
      <select value={props.value} onChange={props.onChange}>
        <option value="">Any</option>
        {RUN_STATUSES.map((s) => (
          <option key={s.value} value={s.value}>
            {s.name}
          </option>
        ))}
      </select>
    </Field>
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
