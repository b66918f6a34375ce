// From a page's bytes to a document: charset decoding (the header's label; else valid multi-byte UTF-8 as
// UTF-8; else the HTML standard's sniffing) and parsing, by the fast path when it proves its tree is the standard's (fast-parse.ts),
// else by parse5 (the HTML standard's tree builder).
import { isAscii, isUtf8 } from 'node:buffer';
import { load, type CheerioAPI } from 'cheerio';
import { decodeBuffer } from 'encoding-sniffer';
import { parse } from 'parse5';
import { adapter } from 'parse5-htmlparser2-tree-adapter';
import { fastParse } from './fast-parse.js';
import type { FetchedPage } from './page.js';
import type { Document } from './select.js';

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

/**
 * The body as UTF-8 when it is valid UTF-8 holding at least one multi-byte character, else undefined.
 * Without a charset from the header, the standard trusts the page's <meta>, but a page saved again as
 * UTF-8 often keeps the <meta> of its old charset (a Shift_JIS or GB2312 page copied by a tool), and
 * reading it by that label garbles every non-ASCII character. Text in a legacy multi-byte or 8-bit
 * charset almost never forms valid multi-byte UTF-8, so such bytes are read as UTF-8 whatever the
 * <meta> says; a page of ASCII only reads alike in either and goes on to the standard's sniffing.
 */
function multiByteUtf8(body: Buffer): string | undefined {
  // Both checks are native scans of the bytes (no decoding, no exception for the pages that fail them).
  return !isAscii(body) && isUtf8(body) ? utf8.decode(body) : undefined;
}

/**
 * The page's text as the standard decodes it (what cheerio's loadBuffer does, without parsing), except
 * that valid multi-byte UTF-8 without a header charset is read as UTF-8 (multiByteUtf8).
 */
export function pageText(page: Pick<FetchedPage, 'body' | 'contentType'>): string {
  const label = charsetOf(page.contentType);
  // A page declared UTF-8 (the common case) needs no sniffing: only a byte order mark could override
  // the header, and the decoder drops a UTF-8 one as the sniffer would.
  if (label && /^(utf-?8|unicode-1-1-utf-8)$/i.test(label) && !hasUtf16Bom(page.body)) return utf8.decode(page.body);
  if (!label && !hasUtf16Bom(page.body)) {
    const text = multiByteUtf8(page.body);
    if (text !== undefined) return text;
  }
  return decodeBuffer(page.body, {
    defaultEncoding: 'utf-8',
    ...(label ? { transportLayerEncodingLabel: label } : {}),
  });
}

/** Which parser read a page: the fast path and parse5 build the same tree (see fast-parse.ts); JSON pages are read by JSON.parse. */
export type ParserUsed = 'fast' | 'standard' | 'json';

/** The page's document, as cheerio's `load()` would build it (parse5, scripting on). */
export function parsePage(
  page: Pick<FetchedPage, 'body' | 'contentType'>,
  fast = true,
): { doc: Document; parser: ParserUsed } {
  const text = pageText(page);
  const doc = fast ? fastParse(text) : null;
  return doc
    ? { doc, parser: 'fast' }
    : { doc: parse(text, { treeAdapter: adapter, scriptingEnabled: true }), parser: 'standard' };
}

/** The page through cheerio's API, for code that explores a page (the Builder) rather than extracts. */
export function parseHtml(page: Pick<FetchedPage, 'body' | 'contentType'>, fast = true): CheerioAPI {
  return load(parsePage(page, fast).doc);
}
