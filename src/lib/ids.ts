// Ids that PostgreSQL stores as bigint (a Schedule's) arrive as JS numbers from the request
// validator. Past 2^53 a number no longer names one integer exactly, so such an id cannot name a
// stored row (ids count up from 1): callers answer "not found" instead of querying a rounded value.

/** The bigint of an int64 id, or null when the number is not exactly an integer id. */
export function exactBigIntId(id: number): bigint | null {
  return Number.isSafeInteger(id) && id > 0 ? BigInt(id) : null;
}
