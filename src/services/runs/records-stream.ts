// A synchronous start answers the Run's records (stored as NDJSON) as one JSON array, streamed: memory
// stays flat whatever the size. The work is on bytes, never decoded text: a line feed (0x0A) cannot
// occur inside a multi-byte UTF-8 sequence, and JSON.stringify escapes line feeds inside strings, so
// every byte of every record passes through unchanged however the chunks split characters.
import type { Readable } from 'node:stream';

const LF = 0x0a;
const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

export async function* jsonArrayFromNdjson(
  source: Readable | AsyncIterable<Buffer | Uint8Array>,
): AsyncGenerator<Buffer> {
  yield OPEN;
  let records = 0;
  let atLineStart = true;
  for await (const chunk of source as AsyncIterable<Buffer | Uint8Array | string>) {
    const buf =
      typeof chunk === 'string'
        ? Buffer.from(chunk, 'utf8')
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    while (start <= buf.length) {
      const lf = buf.indexOf(LF, start);
      const end = lf === -1 ? buf.length : lf;
      if (end > start) {
        if (atLineStart && records > 0) yield COMMA;
        if (atLineStart) records += 1;
        atLineStart = false;
        yield buf.subarray(start, end);
      }
      if (lf === -1) break;
      atLineStart = true;
      start = lf + 1;
    }
  }
  yield CLOSE;
}
