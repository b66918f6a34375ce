// The first records of a Run's export, read from the start of its file (never the whole of a big one):
// CSV (RFC 4180 quoting), NDJSON, or a JSON array.

export const PREVIEW_RECORDS = 100;
/** Bytes read at most for a preview; a JSON array longer than this is shown only when it fits. */
export const PREVIEW_BYTES = 2 * 1024 * 1024;

function csvRows(text: string, limit: number): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length && rows.length <= limit; i++) {
    const c = text[i];
    if (quoted) {
      if (c !== '"') cell += c;
      else if (text[i + 1] === '"') {
        cell += '"';
        i++;
      } else quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += c;
  }
  return rows;
}

/** The first records of `text`, the start of the file `name` (`complete`: the whole file). */
export function parseRecords(name: string, text: string, complete: boolean): Record<string, unknown>[] {
  if (name.endsWith('.csv')) {
    const [header, ...rows] = csvRows(text, PREVIEW_RECORDS + 1);
    return (header ? rows.slice(0, PREVIEW_RECORDS) : []).map((r) =>
      Object.fromEntries(header.map((h, i) => [h, r[i] ?? ''])),
    );
  }
  if (name.endsWith('.ndjson')) {
    const lines = text.split('\n').slice(0, PREVIEW_RECORDS + 1);
    return lines
      .filter((l) => l.trim())
      .slice(0, PREVIEW_RECORDS)
      .flatMap((l) => {
        try {
          return [JSON.parse(l) as Record<string, unknown>];
        } catch {
          return []; // the last line of the slice may be cut
        }
      });
  }
  if (!complete)
    throw new Error(
      `This JSON export is larger than ${PREVIEW_BYTES / 1024 / 1024} MiB: its records are shown only from a file that fits. Download it to read them.`,
    );
  const all = JSON.parse(text) as unknown;
  return Array.isArray(all) ? (all.slice(0, PREVIEW_RECORDS) as Record<string, unknown>[]) : [];
}
