import type { ExportFormat } from './definition.js';
import type { ExtractionSet } from './crawler.js';
import type { ExtractedRecord, FieldValue } from './extract.js';
import { CONTENT_TYPES, type RunFileType, type StoredFile } from './files.js';
import type { Storage } from './storage.js';

export { CONTENT_TYPES, type RunFileType, type StoredFile } from './files.js';
export { createRunLog, type RunLog, type RunLogOptions, type RunLogLevel, type RunLogMode } from './run-log.js';

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
  let text = typeof value === 'number' ? String(value) : value;
  if (typeof value === 'string' && FORMULA_START.test(text) && !PLAIN_NUMBER.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(values: Array<FieldValue | undefined>): string {
  return values.map(csvField).join(',') + '\r\n';
}

/**
 * One record as a JSON object with exactly the export columns, in column order. Built by hand because
 * JavaScript objects put integer-like keys ("2024") first, which would reorder columns.
 */
export function jsonRecord(record: ExtractedRecord, columns: string[]): string {
  return '{' + columns.map((c) => `${JSON.stringify(c)}:${JSON.stringify(record[c] ?? null)}`).join(',') + '}';
}

const CHUNK_CHARS = 64 * 1024;

/** Batches small strings into larger chunks so writing a million records is not a million writes. */
async function* batched(parts: Iterable<string>): AsyncGenerator<string> {
  let buffer = '';
  for (const part of parts) {
    buffer += part;
    if (buffer.length >= CHUNK_CHARS) {
      yield buffer;
      buffer = '';
    }
  }
  if (buffer.length > 0) yield buffer;
}

function* csvParts(records: Iterable<ExtractedRecord>, columns: string[]): Generator<string> {
  yield csvLine(columns);
  for (const record of records) yield csvLine(columns.map((c) => record[c]));
}

/** `[`, newline, one compact object per line separated by `,` + newline, newline, `]`, newline. Empty: `[]` + newline. */
function* jsonParts(records: Iterable<ExtractedRecord>, columns: string[]): Generator<string> {
  let first = true;
  for (const record of records) {
    yield (first ? '[\n' : ',\n') + jsonRecord(record, columns);
    first = false;
  }
  yield first ? '[]\n' : '\n]\n';
}

function* ndjsonParts(records: Iterable<ExtractedRecord>, columns: string[]): Generator<string> {
  for (const record of records) yield jsonRecord(record, columns) + '\n';
}

/** The exact bytes of an export as a stream of strings. */
export function serializeRecords(format: ExportFormat, records: Iterable<ExtractedRecord>, columns: string[]): AsyncIterable<string> {
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
  sets: ExtractionSet[];
  /** Combined: one file with every set in order; Separated: one file per set (`data-set1.csv`, ...). */
  parallelExport?: ParallelExport;
}

function joinKey(prefix: string, name: string): string {
  const trimmed = prefix.replace(/\/+$/, '');
  return trimmed === '' ? name : `${trimmed}/${name}`;
}

function* allRecords(sets: ExtractionSet[]): Generator<ExtractedRecord> {
  for (const set of sets) yield* set.records;
}

/** Writes the records to storage in the chosen format, projected to `columns`. */
export async function exportRecords(options: ExportOptions): Promise<ExportedFile[]> {
  const { storage, format, columns, sets } = options;
  const baseName = options.baseName ?? 'data';
  const { fileType, extension } = FORMATS[format];
  const contentType = CONTENT_TYPES[fileType];
  const write = async (name: string, records: Iterable<ExtractedRecord>, count: number): Promise<ExportedFile> => {
    const key = joinKey(options.keyPrefix, name);
    const { size } = await storage.put(key, serializeRecords(format, records, columns));
    return { key, name, fileType, contentType, size, records: count };
  };

  if ((options.parallelExport ?? 'Combined') === 'Combined') {
    const count = sets.reduce((sum, set) => sum + set.records.length, 0);
    return [await write(`${baseName}.${extension}`, allRecords(sets), count)];
  }
  const files: ExportedFile[] = [];
  for (const set of sets) files.push(await write(`${baseName}-set${set.set}.${extension}`, set.records, set.records.length));
  return files;
}
