// Pure rules of GET /api/v1/agent/all and /agent/search: which sort column, which page, which
// configType a query asks for. Invalid values throw ValidationError (400 VALIDATION_FAILED).
import type { AgentListQueryInput } from '../../schemas/agents.js';
import { ValidationError } from '../../lib/errors.js';

export const SORT_COLUMNS = ['name', 'lastActivity', 'created', 'updated', 'status', 'configType'] as const;
export type SortColumn = (typeof SORT_COLUMNS)[number];

/** Over this a page (or a search) is clamped, as design.md section 1 asks for documented maximums. */
export const MAX_RECORDS_PER_PAGE = 1000;
export const DEFAULT_SEARCH_RECORDS = 50;
export const MAX_SEARCH_RECORDS = 1000;

// The public client sends its ConfigType names (Agent, Shared, Command...); the spec numbers them.
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
  // The schema already refuses values below 1. Pagination needs both parameters (spec: "pagination is
  // enabled when given with recordsPerPage"); one alone keeps the legacy plain array.
  let page: AgentListRequest['page'] = null;
  if (q.pageIndex !== undefined && q.recordsPerPage !== undefined) {
    const limit = Math.min(q.recordsPerPage, MAX_RECORDS_PER_PAGE);
    page = { limit, offset: (q.pageIndex - 1) * limit };
  }
  return { filter, sort, page };
}

export function clampSearchRecords(maxRecords: number | undefined): number {
  return Math.min(maxRecords ?? DEFAULT_SEARCH_RECORDS, MAX_SEARCH_RECORDS);
}

/** A LIKE pattern matching `text` anywhere, with the LIKE wildcards of `text` taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
