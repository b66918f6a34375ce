// `successCriteria`: what a Run must reach to count as a success, beyond ending normally. A Run that
// extracted but misses a criterion ends Completed with SUCCESS_CRITERIA_MISSED, or Failure with
// `failBelow`. The figures are counted during the crawl (`CriteriaTally`) and judged once at its end
// (`criteriaMissed`), so the Run's status rule itself stays where it is (the status machine).
import { Type, type Static } from '@sinclair/typebox';
import type { FieldSpec } from './definition-fields.js';
import { isMissing, type ExtractedRecord } from './extract.js';
import { EngineFailureCode, type EngineFailure } from './failure-codes.js';

const Ratio = (description: string) => Type.Number({ minimum: 0, maximum: 1, description });

export const SuccessCriteriaSchema = Type.Object(
  {
    minRecords: Type.Optional(
      Type.Integer({ minimum: 0, description: 'At least this many records extracted (before export filters).' }),
    ),
    maxErrorRatio: Type.Optional(
      Ratio('At most this share of the pages attempted failed (after retries): failed pages / pages attempted.'),
    ),
    minFillRate: Type.Optional(
      Type.Record(Type.String({ minLength: 1 }), Ratio('Share of the extracted records whose field is non-empty.'), {
        description:
          'Per field (a top-level field of list or follow): the least share of records where it has a value.',
      }),
    ),
    failBelow: Type.Optional(
      Type.Boolean({
        description:
          'true: a missed criterion makes the Run end Failure (6), without export files; default false: Completed (9).',
      }),
    ),
  },
  {
    title: 'SuccessCriteria',
    additionalProperties: false,
    description:
      'What a Run must reach to end Success. A Run that extracted but misses one ends Completed (9) with errorCode ' +
      'SUCCESS_CRITERIA_MISSED naming the criterion and the figure, or Failure (6) with failBelow.',
    example: { minRecords: 50, maxErrorRatio: 0.1, minFillRate: { price: 0.95 }, failBelow: false },
  },
);
export type SuccessCriteria = Static<typeof SuccessCriteriaSchema>;

/** The parts of a definition the criteria's checks read (an AgentDefinition is one). */
interface CriteriaPlan {
  successCriteria?: SuccessCriteria;
  list: { fields: FieldSpec[] };
  follow?: { fields: FieldSpec[] };
}

/** Save-time problems the schema cannot see: minFillRate naming a field the definition does not have. */
export function criteriaProblems(def: CriteriaPlan): string[] {
  const rates = def.successCriteria?.minFillRate;
  if (!rates) return [];
  const names = new Set([...def.list.fields, ...(def.follow?.fields ?? [])].map((f) => f.name));
  const known = [...names].map((n) => `'${n}'`).join(', ');
  return Object.keys(rates)
    .filter((name) => !names.has(name))
    .map((name) => `successCriteria.minFillRate.${name}: names no field of list or follow (fields: ${known})`);
}

/** What the criteria are judged on, counted while the Run goes. */
export interface CriteriaFigures {
  records: number;
  pagesAttempted: number;
  pagesFailed: number;
  /** Per field of minFillRate: records where it had a value, of `tallied` records looked at. */
  filled: Record<string, number>;
  tallied: number;
}

/** What a CriteriaTally has counted: kept in a crawl's checkpoint, so a resumed Run counts on from it. */
export interface CriteriaCounts {
  filled: Record<string, number>;
  tallied: number;
}

/** Counts, per field of minFillRate, the kept records where the field has a value. */
export class CriteriaTally {
  readonly filled: Record<string, number> = {};
  /** Records looked at, by every attempt of the Run (a resumed one starts from its checkpoint's counts). */
  tallied = 0;
  readonly #fields: string[];

  constructor(criteria: SuccessCriteria | undefined, from?: CriteriaCounts) {
    this.#fields = Object.keys(criteria?.minFillRate ?? {});
    for (const f of this.#fields) this.filled[f] = from?.filled[f] ?? 0;
    this.tallied = from?.tallied ?? 0;
  }

  /** The counts so far, for a checkpoint. */
  counts(): CriteriaCounts {
    return { filled: { ...this.filled }, tallied: this.tallied };
  }

  record(record: ExtractedRecord): void {
    this.tallied++;
    for (const f of this.#fields) if (!isMissing(record[f])) this.filled[f]++;
  }
}

/** A ratio as the message shows it: at most 4 decimals. */
const shown = (x: number) => Math.round(x * 10_000) / 10_000;

/**
 * The first criterion missed (in the order minRecords, maxErrorRatio, minFillRate by field), with the
 * number missed in all; undefined when every criterion holds or there are none. No page attempted is
 * an error ratio of 0; no record is a fill rate of 0.
 */
export function criteriaMissed(criteria: SuccessCriteria | undefined, f: CriteriaFigures): EngineFailure | undefined {
  if (!criteria) return undefined;
  const missed: Array<Record<string, string | number>> = [];
  if (criteria.minRecords !== undefined && f.records < criteria.minRecords)
    missed.push({ criterion: 'minRecords', expected: criteria.minRecords, actual: f.records });
  const ratio = f.pagesAttempted === 0 ? 0 : f.pagesFailed / f.pagesAttempted;
  if (criteria.maxErrorRatio !== undefined && ratio > criteria.maxErrorRatio)
    missed.push({
      criterion: 'maxErrorRatio',
      expected: criteria.maxErrorRatio,
      actual: shown(ratio),
      failed: f.pagesFailed,
      attempted: f.pagesAttempted,
    });
  for (const [field, min] of Object.entries(criteria.minFillRate ?? {})) {
    const rate = f.tallied === 0 ? 0 : (f.filled[field] ?? 0) / f.tallied;
    if (rate < min)
      missed.push({
        criterion: `minFillRate.${field}`,
        expected: min,
        actual: shown(rate),
        filled: f.filled[field] ?? 0,
        records: f.tallied,
      });
  }
  if (missed.length === 0) return undefined;
  return {
    code: EngineFailureCode.SuccessCriteriaMissed,
    params: { ...missed[0], missed: missed.length },
  };
}
