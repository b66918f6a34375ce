// Undoes a response's Content-Encoding, never producing more than the body size limit (a gzip bomb
// ends on the limit, not in memory).
import zlib from 'node:zlib';
import { AttemptFailure } from './http-failure.js';

export function decodeBody(raw: Buffer, contentEncoding: string | null, maxBytes: number): Buffer {
  if (!contentEncoding) return raw;
  // Encodings are listed in the order they were applied, so undo them from the last.
  const encodings = contentEncoding
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e && e !== 'identity')
    .reverse();
  let body = raw;
  try {
    for (const encoding of encodings) {
      if (encoding === 'gzip' || encoding === 'x-gzip') body = zlib.gunzipSync(body, { maxOutputLength: maxBytes });
      else if (encoding === 'br') body = zlib.brotliDecompressSync(body, { maxOutputLength: maxBytes });
      else if (encoding === 'deflate') {
        // Servers disagree on whether "deflate" has the zlib wrapper.
        try {
          body = zlib.inflateSync(body, { maxOutputLength: maxBytes });
        } catch {
          body = zlib.inflateRawSync(body, { maxOutputLength: maxBytes });
        }
      } else throw new AttemptFailure('network', `unsupported content encoding '${encoding}'`, false);
    }
  } catch (error) {
    if (error instanceof AttemptFailure) throw error;
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new AttemptFailure('too-large', `response body exceeds ${maxBytes} bytes`, false);
    }
    throw new AttemptFailure('network', `could not decode ${contentEncoding} body: ${(error as Error).message}`, true);
  }
  return body;
}
