// Pure rules of GET /api/v1/agent/all and /agent/search: which sort column, which page, which
// configType a query asks for. Invalid values throw ValidationError (400 VALIDATION_FAILED).
import type { AgentListQueryInput } from '../../schemas/agents.js';
import { ValidationError } from '../../lib/errors.js';
import { requestedPage } from '../../lib/paging.js';

export const SORT_COLUMNS = ['name', 'lastActivity', 'created', 'updated', 'status', 'configType'] as const;
export type SortColumn = (typeof SORT_COLUMNS)[number];

// The public client sends its ConfigType names (Agent, Shared, Command...); the contract numbers them
// (docs/api-contract.md §3.1).
const CONFIG_TYPE_NAMES: Record<string, number> = {
  agent: 1,
  sharedfile: 2,
  shared: 2,
  template: 3,
  command: 4,
};

export interface AgentListFilter {
  name?: string;
  status?: number;
  spaceId?: number;
  configType?: number;
}

export interface AgentSort {
  column: SortColumn;
  descending: boolean;
}

export interface AgentListRequest {
  filter: AgentListFilter;
  sort: AgentSort;
  /** null: no pagination, the legacy plain array. */
  page: { limit: number; offset: number } | null;
}

export function parseSortColumn(value: string | undefined): SortColumn {
  if (value === undefined || value.trim() === '') return 'name';
  const lower = value.trim().toLowerCase();
  const hit = SORT_COLUMNS.find((c) => c.toLowerCase() === lower);
  if (!hit)
    throw new ValidationError(`querystring.sortColumn must be one of ${SORT_COLUMNS.join(', ')}; got '${value}'.`);
  return hit;
}

export function parseConfigType(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    if (n >= 1 && n <= 4) return n;
  } else {
    const n = CONFIG_TYPE_NAMES[text.toLowerCase()];
    if (n !== undefined) return n;
  }
  throw new ValidationError(
    `querystring.configType must be 1 (Agent), 2 (SharedFile), 3 (Template) or 4 (Command), by number or name; got '${value}'.`,
  );
}

export function parseAgentListQuery(q: AgentListQueryInput): AgentListRequest {
  const sort: AgentSort = { column: parseSortColumn(q.sortColumn), descending: q.sortOrder === 1 };
  const filter: AgentListFilter = {
    name: q.name !== undefined && q.name !== '' ? q.name : undefined,
    status: q.status,
    spaceId: q.spaceId,
    configType: parseConfigType(q.configType),
  };
  // The schema already refuses values below 1. Pagination needs both parameters (the API contract:
  // "pagination is enabled when given with recordsPerPage"); one alone keeps the legacy plain array.
  const window = requestedPage(q);
  const page: AgentListRequest['page'] = window ? { limit: window.recordsPerPage, offset: window.skip } : null;
  return { filter, sort, page };
}

/** A LIKE pattern matching `text` anywhere, with the LIKE wildcards of `text` taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
