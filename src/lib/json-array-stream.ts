// A JSON array written as a stream: batches of items, each serialized by the caller's function (the
// route's own response serializer, so the bytes are those of a serialized array), joined by commas.
import { Readable } from 'node:stream';

/**
 * Waits for the first batch before returning, so that an error up to there still becomes an
 * ordinary error response; a later one can only abort the response already under way.
 */
export async function jsonArrayStream<T>(
  batches: AsyncIterable<T[]>,
  serialize: (item: T) => string,
): Promise<Readable> {
  const iterator = batches[Symbol.asyncIterator]();
  const first = await iterator.next();
  async function* chunks() {
    try {
      let separator = '[';
      for (let next = first; !next.done; next = await iterator.next()) {
        if (next.value.length === 0) continue;
        yield separator + next.value.map(serialize).join(',');
        separator = ',';
      }
      yield separator === '[' ? '[]' : ']';
    } finally {
      // A client that goes away stops the reading of further batches.
      await iterator.return?.();
    }
  }
  return Readable.from(chunks(), { objectMode: false });
}
