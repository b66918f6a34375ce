import type { ExportFormat } from './definition.js';
import type { ExtractedRecord, FieldValue } from './extract.js';
import { CONTENT_TYPES, type RunFileType, type StoredFile } from './files.js';
import type { Storage } from '../storage/index.js';

export { CONTENT_TYPES, type RunFileType, type StoredFile } from './files.js';
export {
  appendRunLogLine,
  createRunLog,
  formatLogLine,
  type RunLog,
  type RunLogOptions,
  type RunLogLevel,
  type RunLogMode,
} from './run-log.js';

export type ParallelExport = 'Combined' | 'Separated';

const FORMATS: Record<ExportFormat, { fileType: RunFileType; extension: string }> = {
  csv: { fileType: 'Csv', extension: 'csv' },
  json: { fileType: 'Json', extension: 'json' },
  ndjson: { fileType: 'Ndjson', extension: 'ndjson' },
};

export interface ExportedFile extends StoredFile {
  /** Records in this file. */
  records: number;
}

// OWASP "CSV injection": a spreadsheet treats a cell starting with one of these as a formula.
const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * RFC 4180 field: quoted when it holds a comma, quote, CR or LF; quotes doubled; null is empty.
 * A text that a spreadsheet would run as a formula (starts with =, +, -, @, tab or CR) is
 * neutralised with a leading apostrophe; numbers, and texts that are plain numbers (-5, +1.5),
 * are left as they are.
 */
export function csvField(value: FieldValue | undefined): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : csvText(value);
  if (typeof value === 'string' && FORMULA_START.test(text) && !PLAIN_NUMBER.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const isScalar = (v: FieldValue) => v === null || typeof v !== 'object';

/**
 * An array or object as one CSV cell, so a record stays one line: an array of scalars joined by "; "
 * (null items empty), anything holding objects or arrays as compact JSON.
 */
function csvText(value: FieldValue[] | { [name: string]: FieldValue }): string {
  if (Array.isArray(value) && value.every(isScalar)) return value.map((v) => (v === null ? '' : String(v))).join('; ');
  return JSON.stringify(value);
}

/**
 * A record's value for an export column: the field of that name, or, when there is none and the name is a
 * dot path (`offers.0.price`), the value it leads to through objects and arrays.
 */
export function columnValue(record: ExtractedRecord, column: string): FieldValue | undefined {
  if (Object.hasOwn(record, column) || !column.includes('.')) return record[column];
  let at: FieldValue | undefined = record;
  for (const key of column.split('.')) {
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string, FieldValue>)[key];
  }
  return at;
}

export function csvLine(values: Array<FieldValue | undefined>): string {
  return values.map(csvField).join(',') + '\r\n';
}

/**
 * One record as a JSON object with exactly the export columns, in column order. Built by hand because
 * JavaScript objects put integer-like keys ("2024") first, which would reorder columns.
 */
export function jsonRecord(record: ExtractedRecord, columns: string[]): string {
  return (
    '{' + columns.map((c) => `${JSON.stringify(c)}:${JSON.stringify(columnValue(record, c) ?? null)}`).join(',') + '}'
  );
}

const CHUNK_CHARS = 64 * 1024;

type Records = Iterable<ExtractedRecord> | AsyncIterable<ExtractedRecord>;

/** Batches small strings into larger chunks so writing a million records is not a million writes. */
async function* batched(parts: AsyncIterable<string>): AsyncGenerator<string> {
  let buffer = '';
  for await (const part of parts) {
    buffer += part;
    if (buffer.length >= CHUNK_CHARS) {
      yield buffer;
      buffer = '';
    }
  }
  if (buffer.length > 0) yield buffer;
}

async function* csvParts(records: Records, columns: string[]): AsyncGenerator<string> {
  yield csvLine(columns);
  for await (const record of records) yield csvLine(columns.map((c) => columnValue(record, c)));
}

/** `[`, newline, one compact object per line separated by `,` + newline, newline, `]`, newline. Empty: `[]` + newline. */
async function* jsonParts(records: Records, columns: string[]): AsyncGenerator<string> {
  let first = true;
  for await (const record of records) {
    yield (first ? '[\n' : ',\n') + jsonRecord(record, columns);
    first = false;
  }
  yield first ? '[]\n' : '\n]\n';
}

async function* ndjsonParts(records: Records, columns: string[]): AsyncGenerator<string> {
  for await (const record of records) yield jsonRecord(record, columns) + '\n';
}

/** The exact bytes of an export as a stream of strings. */
export function serializeRecords(format: ExportFormat, records: Records, columns: string[]): AsyncIterable<string> {
  switch (format) {
    case 'csv':
      return batched(csvParts(records, columns));
    case 'json':
      return batched(jsonParts(records, columns));
    case 'ndjson':
      return batched(ndjsonParts(records, columns));
  }
}

export interface ExportOptions {
  storage: Storage;
  /** Folder of the run's files, e.g. `runs/123`. */
  keyPrefix: string;
  /** File name without extension (default `data`). */
  baseName?: string;
  format: ExportFormat;
  columns: string[];
  /** Records in memory (a crawler's ExtractionSet) or read as they come (e.g. from a spool file). */
  sets: Array<{ set: number; records: Records }>;
  /** Combined: one file with every set in order; Separated: one file per set (`data-set1.csv`, ...). */
  parallelExport?: ParallelExport;
}

function joinKey(prefix: string, name: string): string {
  const trimmed = prefix.replace(/\/+$/, '');
  return trimmed === '' ? name : `${trimmed}/${name}`;
}

async function* allRecords(sets: ExportOptions['sets']): AsyncGenerator<ExtractedRecord> {
  for (const set of sets) for await (const record of set.records) yield record;
}

async function* counted(records: Records, counter: { n: number }): AsyncGenerator<ExtractedRecord> {
  for await (const record of records) {
    counter.n += 1;
    yield record;
  }
}

/** Writes the records to storage in the chosen format, projected to `columns`. */
export async function exportRecords(options: ExportOptions): Promise<ExportedFile[]> {
  const { storage, format, columns, sets } = options;
  const baseName = options.baseName ?? 'data';
  const { fileType, extension } = FORMATS[format];
  const contentType = CONTENT_TYPES[fileType];
  const write = async (name: string, records: Records): Promise<ExportedFile> => {
    const key = joinKey(options.keyPrefix, name);
    const counter = { n: 0 };
    const { size } = await storage.put(key, serializeRecords(format, counted(records, counter), columns));
    return { key, name, fileType, contentType, size, records: counter.n };
  };

  if ((options.parallelExport ?? 'Combined') === 'Combined') {
    return [await write(`${baseName}.${extension}`, allRecords(sets))];
  }
  const files: ExportedFile[] = [];
  for (const set of sets) files.push(await write(`${baseName}-set${set.set}.${extension}`, set.records));
  return files;
}
