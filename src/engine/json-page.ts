// A JSON page of a JSON definition: the records are the values `list.jsonPath` selects, each field's
// `jsonPath` selects its value relative to the record, and `next.jsonPath` gives the next page's URL.
// A body that is not JSON, or JSON nested deeper than MAX_JSON_DEPTH (whose values could not be copied
// or written out without exhausting the stack), fails the page with a message saying so.
import type { FieldSpec } from './definition-fields.js';
import { queryJson, type JsonValue } from './jsonpath.js';
import type { FetchedPage } from './page.js';
import { pageText } from './parse.js';
import { applySteps, resolveUrl, type FieldValue, type TransformTally } from './transforms.js';

export const MAX_JSON_DEPTH = 256;

/** Thrown for a page that cannot be read at all; the page fails with its message, the Run goes on. */
export class UnreadablePage extends Error {}

/** Deepest nesting of arrays and objects in a JSON text (strings skipped), stopping past `limit`. */
function nestingDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string, escapes included.
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > deepest && (deepest = depth) > limit) return deepest;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

type JsonPage = Pick<FetchedPage, 'body' | 'contentType' | 'finalUrl'>;

export function parseJsonPage(page: JsonPage): JsonValue {
  const text = pageText(page);
  if (nestingDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH)
    throw new UnreadablePage(`its JSON is nested deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw new UnreadablePage(`it is not JSON (${page.contentType ?? 'no content type'}): ${(error as Error).message}`);
  }
}

const stepsOf = (field: FieldSpec) =>
  field.transform === undefined ? [] : Array.isArray(field.transform) ? field.transform : [field.transform];

/** A selected JSON value as a field value: scalars as text or number, booleans as text, arrays and objects kept. */
function fromJson(value: JsonValue): FieldValue {
  if (typeof value === 'boolean') return String(value);
  return value as FieldValue;
}

function jsonField(record: JsonValue, field: FieldSpec, baseUrl: string, tally: TransformTally): FieldValue {
  const found = field.jsonPath === undefined ? [record] : queryJson(record, field.jsonPath);
  const read = (value: JsonValue): FieldValue =>
    field.fields
      ? jsonFields(value, field.fields, baseUrl, tally)
      : applySteps(fromJson(value), stepsOf(field), baseUrl, tally);
  if (field.multiple) return found.map(read);
  if (found.length === 0) return field.fields ? null : applySteps(null, stepsOf(field), baseUrl, tally);
  return read(found[0]);
}

function jsonFields(record: JsonValue, fields: FieldSpec[], baseUrl: string, tally: TransformTally) {
  const out: Record<string, FieldValue> = {};
  for (const field of fields) out[field.name] = jsonField(record, field, baseUrl, tally);
  return out;
}

/** A JSON list page's records (one per value `list.jsonPath` selects, or the whole page) and next page. */
export function extractJsonListPage(
  page: JsonPage,
  list: { jsonPath?: string; fields: FieldSpec[] },
  next: { jsonPath?: string } | undefined,
): { records: Array<Record<string, FieldValue>>; nextUrl: string | null; unparsedDates: number } {
  const json = parseJsonPage(page);
  const tally: TransformTally = { unparsedDates: 0 };
  const found = list.jsonPath === undefined ? [json] : queryJson(json, list.jsonPath);
  const records = found.map((record) => jsonFields(record, list.fields, page.finalUrl, tally));
  const nextValue = next?.jsonPath === undefined ? undefined : queryJson(json, next.jsonPath)[0];
  const nextUrl = typeof nextValue === 'string' ? resolveUrl(nextValue, page.finalUrl) : null;
  return { records, nextUrl, unparsedDates: tally.unparsedDates };
}
