// Scoring of the real-pages evaluation (bench/builder-real.ts): a value is right when it equals the
// hand-written one after whitespace normalisation; an expected number also accepts the text of that
// number with its currency or unit ("€ 1.234,50", "4.5 stars"); an expected list of values (a field
// with several values, e.g. the tags of a post) is right when the extracted list holds the same values
// in the same order. A field is looked up under its expected name or under one of the page's other
// names for it (the prompt's own word, e.g. "preis" for price).

export type Value = string | number | string[];

export interface RealPage {
  id: string;
  file: string;
  site: string;
  kind: string;
  /** Where the saved page was published: repository, path and commit. */
  source: { repository: string; path: string; commit: string };
  /** Languages of the page and of the prompt (ISO 639-1). */
  language: { page: string; prompt: string };
  prompt: string;
  /** Tuning pages are for developing the Builder; holdout pages only for scoring it (see split.ts). */
  split: 'tuning' | 'holdout';
  /** Other names a field may have in the draft: the words the prompt uses for it. */
  aliases?: Record<string, string[]>;
  /** Records on the page (the expected ones are its first, in page order). */
  count: number;
  expected: Array<Record<string, Value>>;
}

const normalize = (v: string) => v.replace(/\s+/g, ' ').trim();

/** "1.234,50 €" -> 1234.5, "$1,299.00" -> 1299, "4.5 stars" -> 4.5; NaN without a number. */
export function numberIn(text: string): number {
  const m = text.match(/-?\d[\d.,' ]*/);
  if (!m) return NaN;
  let s = m[0].replace(/[' ]/g, '');
  const lastDot = s.lastIndexOf('.');
  const lastComma = s.lastIndexOf(',');
  if (lastDot >= 0 && lastComma >= 0) {
    s = lastComma > lastDot ? s.replace(/\./g, '').replace(',', '.') : s.replace(/,/g, '');
  } else if (lastComma >= 0) {
    s = /,\d{1,2}$/.test(s) ? s.replace(',', '.') : s.replace(/,/g, '');
  } else if (/^\d{1,3}(\.\d{3})+$/.test(s)) s = s.replace(/\./g, '');
  return Number(s.replace(/[.,]$/, ''));
}

export function sameValue(got: unknown, want: Value, base: string): boolean {
  if (got === undefined || got === null) return false;
  if (Array.isArray(want)) {
    return Array.isArray(got) && got.length === want.length && want.every((w, i) => sameValue(got[i], w, base));
  }
  if (typeof want === 'number') return typeof got === 'number' ? got === want : numberIn(String(got)) === want;
  return normalize(String(got)) === normalize(want.replace('{{base}}', base));
}

/** The names a field may carry in the draft: its expected name, then the page's aliases for it. */
export function namesOf(page: RealPage, field: string): string[] {
  return [field, ...(page.aliases?.[field] ?? [])];
}

/** The record's value of an expected field, under whichever of its names the record uses. */
function valueOf(page: RealPage, record: Record<string, unknown>, field: string): unknown {
  return namesOf(page, field)
    .map((name) => record[name])
    .find((v) => v !== undefined);
}

export function scorePage(page: RealPage, records: Array<Record<string, unknown>>, base: string): { fieldAccuracy: number; recordRecall: number } {
  let right = 0;
  let total = 0;
  let found = 0;
  page.expected.forEach((want, i) => {
    const [key] = Object.keys(want);
    const byKey = records.find((r) => sameValue(valueOf(page, r, key), want[key], base));
    if (byKey) found++;
    const got = byKey ?? records[i] ?? {};
    for (const [name, value] of Object.entries(want)) {
      total++;
      if (sameValue(valueOf(page, got, name), value, base)) right++;
    }
  });
  const share = page.expected.length > 0 ? found / page.expected.length : 0;
  return { fieldAccuracy: total > 0 ? right / total : 0, recordRecall: Math.min(1, records.length / page.count) * share };
}
