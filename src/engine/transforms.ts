// A field's transform steps, each applied to the previous step's result (to every item of an array).
// Regular expressions run on RE2JS, a linear-time engine (no backtracking), so no pattern can hold a page
// for longer than its input's length allows; each pattern is compiled once per process (a bounded cache).
import { DateTime, Info } from 'luxon';
import { RE2JS } from 're2js';
import type { FieldStep } from './definition-fields.js';

export type Scalar = string | number | null;
export type FieldValue = Scalar | FieldValue[] | { [name: string]: FieldValue };

/** Counts what transforms could not do on one page (a date that did not parse), for the Run's evidence. */
export interface TransformTally {
  unparsedDates: number;
}

/**
 * First number in the text, ignoring currency signs, spaces and thousands separators, in the notations of
 * both sides of the Atlantic: '$1,234.50' -> 1234.5, '1.234,50 €' -> 1234.5, '699,00' -> 699,
 * "CHF 1'234.50" -> 1234.5. With both a dot and a comma the later one is the decimal mark; a mark that
 * repeats separates thousands; a lone comma before exactly three digits separates thousands ('1,234'),
 * any other lone comma or dot is the decimal mark.
 */
export function parseNumber(text: string): number | null {
  const match = text.replace(/\s+/g, '').match(/[-+]?(?:\d(?:[\d.,'’]*\d)?|[.,]\d+)/);
  if (!match) return null;
  const value = Number(plainNumber(match[0].replace(/['’]/g, '')));
  return Number.isFinite(value) ? value : null;
}

/** A number's digits with '.' as the only mark, its decimal one (see parseNumber). */
function plainNumber(token: string): string {
  const dot = token.lastIndexOf('.');
  const comma = token.lastIndexOf(',');
  if (dot >= 0 && comma >= 0) {
    const [decimal, thousands] = dot > comma ? ['.', ','] : [',', '.'];
    return token.split(thousands).join('').replace(decimal, '.');
  }
  const mark = dot >= 0 ? '.' : comma >= 0 ? ',' : null;
  if (mark === null) return token;
  const parts = token.split(mark);
  if (parts.length > 2) return parts.join('');
  const [whole, fraction] = parts;
  const thousands = mark === ',' && fraction.length === 3 && /[1-9]/.test(whole);
  return thousands ? whole + fraction : `${whole}.${fraction}`;
}

/** Resolves a (possibly relative) link against the page URL; null when it is no URL at all. */
export function resolveUrl(href: string, baseUrl: string): string | null {
  const trimmed = href.trim();
  if (trimmed === '') return null;
  try {
    return new URL(trimmed, baseUrl).href;
  } catch {
    return null;
  }
}

const FLAG_BITS: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, m: RE2JS.MULTILINE, s: RE2JS.DOTALL };
const patterns = new Map<string, RE2JS>();
const MAX_CACHED_PATTERNS = 256;

/** The compiled pattern (cached); throws RE2JS's syntax error for one that does not compile. */
export function compilePattern(pattern: string, flags = ''): RE2JS {
  const key = `${flags}/${pattern}`;
  let re = patterns.get(key);
  if (!re) {
    let bits = 0;
    for (const f of flags) bits |= FLAG_BITS[f] ?? 0;
    re = RE2JS.compile(pattern, bits);
    if (patterns.size >= MAX_CACHED_PATTERNS) patterns.delete(patterns.keys().next().value!);
    patterns.set(key, re);
  }
  return re;
}

const asText = (value: Scalar): string | null => (value === null ? null : String(value));

/** Each step's compiled pattern, kept with the step itself (the definition a Run holds): compiled once per Run. */
const stepPatterns = new WeakMap<object, RE2JS>();

function patternOf(step: { flags?: string }, pattern: string): RE2JS {
  let re = stepPatterns.get(step);
  if (!re) {
    re = compilePattern(pattern, step.flags);
    stepPatterns.set(step, re);
  }
  return re;
}

function regexStep(value: string, step: Extract<FieldStep, { regex: string }>): string | null {
  const matcher = patternOf(step, step.regex).matcher(value);
  if (!matcher.find()) return null;
  return matcher.group(step.group ?? 0);
}

function dateStep(value: string, step: Extract<FieldStep, { date: string }>, tally: TransformTally): string | null {
  const parsed = DateTime.fromFormat(value.trim(), step.date, {
    zone: step.zone ?? 'UTC',
    ...(step.locale ? { locale: step.locale } : {}),
  });
  if (parsed.isValid) return parsed.toISO();
  tally.unparsedDates++;
  return null;
}

/** One step on one scalar; `split` makes an array. */
function applyStep(value: Scalar, step: FieldStep, baseUrl: string, tally: TransformTally): FieldValue {
  if (typeof step === 'object' && 'default' in step) return value === null || value === '' ? step.default : value;
  if (value === null) return null;
  if (typeof step === 'string') {
    switch (step) {
      case 'trim':
        return typeof value === 'string' ? value.trim() : value;
      case 'number':
        return typeof value === 'number' ? value : parseNumber(value);
      case 'absoluteUrl':
        return resolveUrl(String(value), baseUrl);
      case 'lowercase':
        return String(value).toLowerCase();
      case 'uppercase':
        return String(value).toUpperCase();
    }
  }
  const text = asText(value) as string;
  if ('regex' in step) return regexStep(text, step);
  if ('replace' in step) return patternOf(step, step.replace).matcher(text).replaceAll(step.with);
  if ('split' in step)
    return text
      .split(step.split)
      .map((s) => s.trim())
      .filter((s) => s !== '');
  return dateStep(text, step, tally);
}

/** The steps in order; an array value (a multiple field, a split) has each item transformed. */
export function applySteps(value: FieldValue, steps: FieldStep[], baseUrl: string, tally: TransformTally): FieldValue {
  let current = value;
  for (const step of steps)
    current =
      current === null || typeof current !== 'object'
        ? applyStep(current, step, baseUrl, tally)
        : mapScalars(current, (v) => applyStep(v, step, baseUrl, tally));
  return current;
}

function mapScalars(value: FieldValue, fn: (v: Scalar) => FieldValue): FieldValue {
  if (Array.isArray(value)) return value.map((v) => mapScalars(v, fn));
  if (value !== null && typeof value === 'object') return value;
  return fn(value);
}

/** Why a date step cannot work, or null: its format must read back what it writes, its zone and locale must exist. */
export function dateStepProblem(step: { date: string; zone?: string; locale?: string }): string | null {
  if (step.zone !== undefined && !Info.isValidIANAZone(step.zone))
    return `zone '${step.zone}' is not an IANA time zone`;
  if (step.locale !== undefined) {
    try {
      Intl.getCanonicalLocales(step.locale);
    } catch {
      return `locale '${step.locale}' is not a BCP 47 language tag`;
    }
  }
  const sample = DateTime.fromObject(
    { year: 2016, month: 3, day: 16, hour: 13, minute: 45, second: 30 },
    { zone: 'UTC' },
  );
  const options = { zone: 'UTC', ...(step.locale ? { locale: step.locale } : {}) };
  const written = sample.setLocale(step.locale ?? 'en-US').toFormat(step.date);
  const explained = DateTime.fromFormatExplain(written, step.date, options) as { result?: Record<string, unknown> };
  if (!DateTime.fromFormat(written, step.date, options).isValid || Object.keys(explained.result ?? {}).length === 0)
    return `date format '${step.date}' is not a Luxon format that reads a date (tokens such as dd.MM.yyyy, d MMMM yyyy, yyyy-MM-dd HH:mm)`;
  return null;
}
