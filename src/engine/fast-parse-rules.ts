// The rules of the fast parse path (fast-parse.ts): which tags and syntax are in its subset, and the
// parts of the standard it takes from parse5 itself (doctypes, character references, SVG adjustments).
import {
  foreignContent,
  html as p5,
  parse as parse5,
  parseFragment,
  Token,
  type DefaultTreeAdapterTypes,
} from 'parse5';
import { adapter, type Htmlparser2TreeAdapterMap } from 'parse5-htmlparser2-tree-adapter';

export type Doc = Htmlparser2TreeAdapterMap['document'];
export type El = Htmlparser2TreeAdapterMap['element'];
export type Parent = Htmlparser2TreeAdapterMap['parentNode'];
export interface Attr {
  name: string;
  value: string;
}

export const NS_HTML = p5.NS.HTML;
export const NO_ATTRIBUTES = Object.freeze(Object.create(null) as Record<string, string>);
const NS_SVG = p5.NS.SVG;
const SPECIAL = p5.SPECIAL_ELEMENTS[NS_HTML];
export const isSpecial = (name: string) => SPECIAL.has(p5.getTagID(name));

export const VOID = new Set(
  'area base basefont bgsound br col embed hr img input keygen link meta param source track wbr'.split(' '),
);
/** Start tags that close an open p (in button scope) in the standard: rejected while any p is open. */
export const CLOSES_P = new Set(
  (
    'address article aside blockquote center details dialog dir div dl fieldset figcaption figure footer header ' +
    'hgroup main menu nav ol p search section summary ul h1 h2 h3 h4 h5 h6 pre listing form li dd dt plaintext ' +
    'table hr xmp'
  ).split(' '),
);
export const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
/** Start tags outside the subset wherever they appear in body. */
export const REJECT_IN_BODY = new Set(
  (
    'head frameset frame template plaintext xmp image isindex math rb rp rt rtc noframes ' +
    'caption col colgroup tbody td tfoot th thead tr'
  ).split(' '),
);
export const IN_HEAD = new Set(['meta', 'link', 'base', 'basefont', 'bgsound', 'title', 'script', 'style', 'noscript']);
/** What the standard still puts into head after </head>. */
export const AFTER_HEAD = new Set(['meta', 'link', 'base', 'basefont', 'bgsound', 'title', 'script', 'style']);
/** Elements whose content the standard reads as raw text and htmlparser2 as markup: kept as one text node. */
export const RAW_TEXT = new Set(['noscript', 'iframe', 'noembed']);
/** Elements htmlparser2's tokenizer itself reads as text up to their end tag. */
export const TOKENIZER_SPECIAL = new Set(['script', 'style', 'title', 'textarea', 'xmp']);
/** What a table-part element may contain besides whitespace and comments. */
export const TABLE_CHILDREN = new Map([
  ['table', new Set(['caption', 'colgroup', 'thead', 'tbody', 'tfoot'])],
  ['thead', new Set(['tr'])],
  ['tbody', new Set(['tr'])],
  ['tfoot', new Set(['tr'])],
  ['tr', new Set(['td', 'th'])],
  ['colgroup', new Set(['col'])],
]);

export const WS_ONLY = /^[\t\n\f ]*$/;
// Attributes are separated by whitespace, or follow a quoted value directly (both parsers start a new
// attribute there); unquoted values may contain "=" (both keep it).
export const START_TAG =
  /<[A-Za-z][A-Za-z0-9:_.-]*(?:(?:[\t\n\f ]+|(?<=["']))[!#-&(-.0-;?-~][!#-&(-.0-;?-~]*(?:[\t\n\f ]*=[\t\n\f ]*(?:"[^"]*"|'[^']*'|[^\t\n\f >"'<`]+))?)*[\t\n\f ]*\/?>/y;
export const END_TAG = /<\/[A-Za-z][A-Za-z0-9:_.-]*[\t\n\f ]*>/y;

/** Thrown inside the tokenizer's callbacks to give the page to the standard parser. */
export const REJECT = new Error('outside the fast path');
/** Why the last page left the fast path (for tests). */
export const rejection = { last: '' };
export function reject(why: string): never {
  rejection.last = why;
  throw REJECT;
}

/** parse5's reading of a doctype (name, ids, document mode), cached by its source text. */
interface Doctype {
  name: string;
  publicId: string;
  systemId: string;
  mode: p5.DOCUMENT_MODE;
}
const doctypes = new Map<string, Doctype>();
export function doctypeOf(raw: string): Doctype {
  const known = doctypes.get(raw);
  if (known) return known;
  const doc = parse5(raw, { treeAdapter: adapter });
  const node = doc.children[0] as unknown as Record<string, string> | undefined;
  if (!node || node.name !== '!doctype') reject('doctype');
  const d = { name: node['x-name'], publicId: node['x-publicId'], systemId: node['x-systemId'], mode: doc['x-mode']! };
  if (doctypes.size < 64) doctypes.set(raw, d as Doctype);
  return d as Doctype;
}

// Character references are decoded by parse5 itself, one distinct reference at a time (htmlparser2's
// decoder reads some references without ";" differently). A reference's meaning depends only on its own
// characters (the longest run an ampersand can start) and, in an attribute, on whether "=" follows.
const REFERENCE = /&(?:#[xX]?)?[A-Za-z0-9]*;?/g;
const references = new Map<string, { text: string; attr: string }>();

function reference(run: string, eqNext: boolean): { text: string; attr: string } {
  const key = eqNext ? `${run}=` : run;
  let decoded = references.get(key);
  if (!decoded) {
    const p = parseFragment(`<p title="${key}">${run}`).childNodes[0] as DefaultTreeAdapterTypes.Element;
    const text = (p.childNodes[0] as DefaultTreeAdapterTypes.TextNode | undefined)?.value ?? '';
    const attr = p.attrs[0].value;
    decoded = { text, attr: eqNext ? attr.slice(0, -1) : attr };
    if (references.size < 10_000) references.set(key, decoded);
  }
  return decoded;
}

export function decode(s: string, inAttr: boolean): string {
  if (!s.includes('&')) return s;
  return s.replace(REFERENCE, (run: string, at: number) => {
    if (run === '&') return run;
    const d = reference(run, inAttr && s.charCodeAt(at + run.length) === 0x3d);
    return inAttr ? d.attr : d.text;
  });
}

/**
 * An SVG element, with the standard's name and attribute adjustments by parse5's own functions; `svgParent`
 * is the current element's name when it is an SVG element.
 */
export function svgElement(
  name: string,
  attrs: Attr[],
  selfClosing: boolean,
  svgParent: string | null,
): { el: El; tagName: string } {
  const token: Token.TagToken = {
    type: Token.TokenType.START_TAG,
    tagName: name,
    tagID: p5.getTagID(name),
    selfClosing,
    ackSelfClosing: false,
    attrs,
    location: null,
  };
  // Leaving foreign content (HTML elements, math, integration points' content) is not in the subset.
  if (name !== 'svg' && (svgParent === null || foreignContent.causesExit(token))) reject(`<${name}> in svg`);
  if (name === 'math' || name === 'foreignobject' || name === 'script' || name === 'textarea' || name === 'xmp')
    reject(`<${name}> in svg`);
  if (svgParent === 'title' || svgParent === 'desc') reject(`<${name}> in svg ${svgParent}`);
  if (name !== 'svg') foreignContent.adjustTokenSVGTagName(token);
  foreignContent.adjustTokenSVGAttrs(token);
  foreignContent.adjustTokenXMLAttrs(token);
  return { el: adapter.createElement(token.tagName, NS_SVG, token.attrs), tagName: token.tagName };
}
