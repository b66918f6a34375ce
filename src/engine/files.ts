export type RunFileType = 'Csv' | 'Json' | 'Ndjson' | 'Log' | 'Html' | 'Png';

export const CONTENT_TYPES: Record<RunFileType, string> = {
  Csv: 'text/csv; charset=utf-8',
  Json: 'application/json',
  Ndjson: 'application/x-ndjson',
  Log: 'text/plain; charset=utf-8',
  Html: 'text/html; charset=utf-8',
  Png: 'image/png',
};

/** A file written to storage for a run. */
export interface StoredFile {
  key: string;
  /** File name shown to users (last segment of the key). */
  name: string;
  fileType: RunFileType;
  contentType: string;
  /** Bytes written. */
  size: number;
}
