// From a page's bytes to a document: charset decoding (the header's label, else the HTML standard's
// sniffing) and parsing.
import { load, loadBuffer, type CheerioAPI, type contains } from 'cheerio';
import type { FetchedPage } from './page.js';

/** cheerio's node type, taken from its own API rather than from a transitive dependency. */
export type AnyNode = Parameters<typeof contains>[0];

function charsetOf(contentType: string | null | undefined): string | undefined {
  return contentType?.match(/charset\s*=\s*"?([^";\s]+)/i)?.[1];
}

/** Text of a body by its declared charset (UTF-8 when none or unknown): for failed pages kept as HTML. */
export function decodeText(body: Buffer, contentType: string | null | undefined): string {
  try {
    return new TextDecoder(charsetOf(contentType) ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

const utf8 = new TextDecoder('utf-8');
const hasUtf16Bom = (b: Buffer) =>
  b.length >= 2 && ((b[0] === 0xfe && b[1] === 0xff) || (b[0] === 0xff && b[1] === 0xfe));

export function parseHtml(page: Pick<FetchedPage, 'body' | 'contentType'>): CheerioAPI {
  const label = charsetOf(page.contentType);
  // A page declared UTF-8 (the common case) needs no sniffing: only a byte order mark could override
  // the header, and the decoder drops a UTF-8 one as the sniffer would.
  if (label && /^(utf-?8|unicode-1-1-utf-8)$/i.test(label) && !hasUtf16Bom(page.body))
    return load(utf8.decode(page.body));
  return loadBuffer(page.body, {
    encoding: { defaultEncoding: 'utf-8', ...(label ? { transportLayerEncodingLabel: label } : {}) },
  });
}
