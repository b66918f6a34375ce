// The fast parse path: htmlparser2's tokenizer feeding a strict tree builder that builds, with
// parse5's own tree adapter, exactly the tree the HTML standard's tree builder (parse5, scripting on) would
// build, for documents in a "safe subset"; anything outside it returns null and the page goes to parse5.
// The subset: every token's source is in a syntax both tokenizers read alike (checked by the regexes
// below, with every byte of the input covered by exactly one token), every end tag closes the current
// element, and no start tag triggers one of the standard's implied closes, foster parenting, adoption,
// foreign content or raw-text tokenization that htmlparser2 does not share. Where the standard's result
// is cheap and exact to produce (the document's html/head/body shape, whitespace outside body, the newline
// after <pre>, raw text of noscript/iframe/noembed, the select element's implied option closes), the
// builder produces it; everything else is rejected. Linear: O(1) work per token, and each raw-text
// element's end is searched once from its start. This file holds the tokenizer callbacks and the subset's
// rules for tags; the stack of open elements and the document's shape are in fast-parse-tree.ts, the
// tables in fast-parse-rules.ts.
import { Tokenizer, type TokenizerCallbacks } from 'htmlparser2';
import { adapter } from 'parse5-htmlparser2-tree-adapter';
import {
  CLOSES_P,
  decode,
  doctypeOf,
  END_TAG,
  HEADINGS,
  isSpecial,
  RAW_TEXT,
  reject,
  REJECT,
  rejection,
  REJECT_IN_BODY,
  START_TAG,
  TABLE_CHILDREN,
  TOKENIZER_SPECIAL,
  VOID,
  type Attr,
  type Doc,
} from './fast-parse-rules.js';
import { Phase, TreeBuilder } from './fast-parse-tree.js';

class Builder extends TreeBuilder implements TokenizerCallbacks {
  /** Next input offset no token has covered yet. */
  private pos = 0;
  /** Inside a raw-text element: where its end tag starts; -1 otherwise. */
  private rawEnd = -1;
  private rawStart = 0;
  private tagStart = 0;
  private tagName = '';
  private attrs: Attr[] = [];
  private attrName = '';
  private attrValue = '';
  private attrNames: Set<string> | null = null;

  constructor(private readonly src: string) {
    super();
  }

  private at(start: number): boolean {
    // Inside a raw-text element every token is skipped, but none may reach its end tag.
    if (this.rawEnd >= 0) return false;
    if (start !== this.pos) reject('syntax');
    return true;
  }

  private inRaw(end: number): boolean {
    if (this.rawEnd < 0) return false;
    if (end > this.rawEnd) reject('raw text end');
    return true;
  }

  // Text ---------------------------------------------------------------------------------------

  ontext(start: number, end: number): void {
    if (this.inRaw(end) || !this.at(start)) return;
    this.pos = end;
    const text = this.src.slice(start, end);
    if (text.endsWith('<') && end === this.src.length) reject('< at end');
    const top = this.top;
    if (top && TOKENIZER_SPECIAL.has(top.name)) {
      const name = top.name;
      const lower = text.toLowerCase();
      // In script, "<!--" then "<script" would hide the end tag from the standard (double escaping).
      if (lower.includes(`</${name}`) || (name === 'script' && lower.includes('<!--') && lower.includes('<script')))
        reject(`${name} text`);
      // SVG's style and title are markup to the standard.
      if (top.svg && text.includes('<')) reject(`${name} text`);
      // Raw text: no references either.
      if (!top.svg && (name === 'script' || name === 'style')) return this.text(text);
    }
    this.text(decode(text, false));
  }

  /** Never called: the tokenizer leaves references to decode(). */
  ontextentity(): void {
    reject('reference');
  }

  // Start tags ---------------------------------------------------------------------------------

  onopentagname(start: number, end: number): void {
    if (this.inRaw(end) || !this.at(start - 1)) return;
    this.tagStart = start - 1;
    this.tagName = this.src.slice(start, end).toLowerCase();
    this.attrs = [];
    this.attrNames = null;
  }

  onattribname(start: number, end: number): void {
    if (this.inRaw(end)) return;
    this.attrName = this.src.slice(start, end).toLowerCase();
    this.attrValue = '';
  }

  onattribdata(start: number, end: number): void {
    if (this.inRaw(end)) return;
    this.attrValue += this.src.slice(start, end);
  }

  onattribentity(): void {
    reject('reference');
  }

  onattribend(_quote: unknown, end: number): void {
    if (this.inRaw(end)) return;
    const name = this.attrName;
    // The first of duplicate attributes wins, in both parsers.
    // A Set keeps the duplicate check linear on tags with many attributes.
    if (this.attrs.length >= 16) this.attrNames ??= new Set(this.attrs.map((a) => a.name));
    if (this.attrNames ? !this.attrNames.has(name) : !this.attrs.some((a) => a.name === name)) {
      this.attrs.push({ name, value: decode(this.attrValue, true) });
      this.attrNames?.add(name);
    }
    this.attrValue = '';
  }

  onopentagend(end: number): void {
    this.tagEnd(end, false);
  }

  onselfclosingtag(end: number): void {
    this.tagEnd(end, true);
  }

  private tagEnd(end: number, selfClosing: boolean): void {
    if (this.inRaw(end + 1)) return;
    START_TAG.lastIndex = this.tagStart;
    if (!START_TAG.test(this.src) || START_TAG.lastIndex !== end + 1)
      reject(`tag ${this.src.slice(this.tagStart, Math.min(end + 1, this.tagStart + 80))}`);
    this.pos = end + 1;
    this.skipLf = false;
    // A self-closing flag on a non-void element is ignored by the standard, but not by htmlparser2's
    // tokenizer for the elements it reads as text.
    if (selfClosing && TOKENIZER_SPECIAL.has(this.tagName)) reject('self-closing raw text element');
    if (this.top?.svg) return this.foreignStartTag(this.tagName, this.attrs, selfClosing);
    if (this.tagName === 'svg') {
      if (this.phase !== Phase.InBody || this.isOpen('select') || TABLE_CHILDREN.has(this.top.name)) reject('<svg>');
      return this.foreignStartTag('svg', this.attrs, selfClosing);
    }
    if (this.adopted(this.tagName, this.attrs)) return;
    this.startTag(this.tagName, this.attrs, end + 1);
  }

  protected override bodyStartTag(name: string, attrs: Attr[], after: number): void {
    const top = this.top.name;
    if (this.isOpen('select')) {
      // The standard's "in select": option and optgroup close an open option (and optgroup).
      if (name !== 'option' && name !== 'optgroup') reject(`<${name}> in select`);
      if (this.top.name === 'option') this.pop();
      if (name === 'optgroup' && this.top.name === 'optgroup') this.pop();
      return this.insert(name, attrs, after);
    }
    const tablePart = TABLE_CHILDREN.get(top);
    if (tablePart) {
      if (top === 'table' && name === 'tr') {
        // The standard inserts a tbody; </table> closes it again.
        this.push(this.element('tbody', [], this.top.el), 'tbody');
        this.top.implied = true;
      } else if (!tablePart.has(name)) reject(`<${name}> in <${top}>`);
      return this.insert(name, attrs, after);
    }
    if (REJECT_IN_BODY.has(name)) reject(`<${name}>`);
    if (name === 'li' && this.top.liCloses) reject('<li> in li');
    if ((name === 'dd' || name === 'dt') && this.top.ddCloses) reject(`<${name}> in dd/dt`);
    // The standard closes an open p here: exact when the p is the current element (table aside, which
    // does not in quirks mode).
    if (CLOSES_P.has(name) && name !== 'table' && top === 'p' && this.open.p === 1) this.pop();
    if (CLOSES_P.has(name) && this.isOpen('p')) reject(`<${name}> in p`);
    if (HEADINGS.has(name) && this.isOpen('heading')) reject('heading in heading');
    if ((name === 'a' || name === 'nobr' || name === 'form' || name === 'button') && this.isOpen(name))
      reject(`<${name}> in ${name}`);
    if ((name === 'option' || name === 'optgroup') && top === 'option') reject('option in option');
    this.insert(name, attrs, after);
  }

  protected override insert(name: string, attrs: Attr[], after: number): void {
    const el = this.element(name, attrs, this.top.el);
    if (VOID.has(name)) return;
    this.push(el, name);
    if (name === 'pre' || name === 'listing' || name === 'textarea') this.skipLf = true;
    if (RAW_TEXT.has(name)) {
      const close = new RegExp(`</${name}[\\t\\n\\f />]`, 'gi');
      close.lastIndex = after;
      if (!close.test(this.src)) reject(`unclosed <${name}>`);
      this.rawStart = after;
      this.rawEnd = close.lastIndex - name.length - 3;
    }
  }

  // End tags -----------------------------------------------------------------------------------

  onclosetag(start: number, end: number): void {
    if (this.rawEnd >= 0) {
      if (start - 2 !== this.rawEnd) return void this.inRaw(end);
      const text = this.src.slice(this.rawStart, this.rawEnd);
      if (text) adapter.insertText(this.top.el, text);
      this.rawEnd = -1;
      this.pos = start - 2;
    }
    if (!this.at(start - 2)) return;
    END_TAG.lastIndex = start - 2;
    if (!END_TAG.test(this.src)) reject('end tag syntax');
    this.pos = END_TAG.lastIndex;
    this.skipLf = false;
    this.endTag(this.src.slice(start, end).toLowerCase());
  }

  protected override bodyEndTag(name: string): void {
    const top = this.top.name;
    if (this.top.svg) {
      if (name !== top.toLowerCase()) reject(`</${name}> closing <${top}>`);
      return this.pop();
    }
    // An end tag for a void element is ignored by the standard (br excepted), and by htmlparser2.
    if (VOID.has(name) && name !== 'br' && !this.isOpen('select') && !TABLE_CHILDREN.has(top)) return;
    if ((name === 'body' || name === 'html') && top === 'body') {
      // The standard keeps body and html open: later whitespace still goes into body.
      this.phase = name === 'body' ? Phase.AfterBody : Phase.AfterAfterBody;
      return;
    }
    if (this.isOpen('select')) {
      if (name === 'optgroup' && top === 'option' && this.stack[this.stack.length - 2].name === 'optgroup') this.pop();
      if (name === 'select') while (this.top.name !== 'select') this.pop();
    }
    if (name === 'table' && this.top.implied) this.pop();
    if (name === this.top.name) return this.pop();
    // An end tag for no open element, while the current element is special, is ignored by the standard
    // (and by htmlparser2); those with their own rules aside.
    if (
      !this.isOpen(name) &&
      isSpecial(this.top.name) &&
      !/^(p|br|body|html|template|h[1-6])$/.test(name) &&
      !(HEADINGS.has(name) && this.isOpen('heading'))
    )
      return;
    reject(`</${name}> closing <${this.top.name}>`);
  }

  // Everything else ----------------------------------------------------------------------------

  oncomment(start: number, end: number): void {
    if (this.inRaw(end + 1) || !this.at(start - 4)) return;
    const raw = this.src.slice(start - 4, end + 1);
    if (!raw.startsWith('<!--') || !raw.endsWith('-->') || raw.length < 7) reject('comment syntax');
    const data = raw.slice(4, -3);
    // The standard ends a comment at "-->" as htmlparser2 does, but also at "--!>" and right after "<!--"
    // at a ">" or "->".
    if (data.startsWith('>') || data.startsWith('->') || data.includes('--!>')) reject('comment');
    this.pos = end + 1;
    this.comment(data);
  }

  ondeclaration(start: number, end: number): void {
    if (this.inRaw(end + 1) || !this.at(start - 2)) return;
    const raw = this.src.slice(start - 2, end + 1);
    if (this.phase !== Phase.Initial || this.sawDoctype || !/^<!doctype/i.test(raw)) reject('doctype');
    const d = doctypeOf(raw);
    adapter.setDocumentType(this.doc, d.name, d.publicId, d.systemId);
    adapter.setDocumentMode(this.doc, d.mode);
    this.sawDoctype = true;
    this.pos = end + 1;
  }

  oncdata(): void {
    reject('CDATA');
  }

  /** `<?...>` is a comment to the standard, "?" included, up to the first ">", as for htmlparser2. */
  onprocessinginstruction(start: number, end: number): void {
    if (this.inRaw(end + 1) || !this.at(start - 2)) return;
    this.pos = end + 1;
    this.comment(this.src.slice(start - 1, end));
  }

  onend(): void {
    if (this.rawEnd >= 0 || this.pos !== this.src.length || this.phase < Phase.InBody) reject('end of input');
    if (TOKENIZER_SPECIAL.has(this.top.name)) reject('end of input');
  }
}

/** Why the last page left the fast path (for tests). */
export const lastRejection = (): string => rejection.last;

/**
 * The standard's tree for `html` when the fast path can prove it builds the same one, else null. The
 * caller hands null to parse5.
 */
export function fastParse(html: string): Doc | null {
  // The standard's input preprocessing (CR and CRLF to LF); NUL is handled differently by each parser.
  const src = html.includes('\r') ? html.replace(/\r\n?/g, '\n') : html;
  if (src.includes('\0')) return null;
  const builder = new Builder(src);
  try {
    const tokenizer = new Tokenizer({ xmlMode: false, decodeEntities: false }, builder);
    tokenizer.write(src);
    tokenizer.end();
  } catch (err) {
    // Anything unforeseen leaves the page to parse5 too: only a finished build is ever returned.
    if (err !== REJECT) rejection.last = `error: ${(err as Error)?.message}`;
    return null;
  }
  return builder.doc;
}
