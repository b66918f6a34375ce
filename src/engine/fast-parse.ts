// The fast parse path (issue 27): htmlparser2's tokenizer feeding a strict tree builder that builds, with
// parse5's own tree adapter, exactly the tree the HTML standard's tree builder (parse5, scripting on) would
// build, for documents in a "safe subset"; anything outside it returns null and the page goes to parse5.
// The subset: every token's source is in a syntax both tokenizers read alike (checked by the regexes
// below, with every byte of the input covered by exactly one token), every end tag closes the current
// element, and no start tag triggers one of the standard's implied closes, foster parenting, adoption,
// foreign content or raw-text tokenization that htmlparser2 does not share. Where the standard's result
// is cheap and exact to produce (the document's html/head/body shape, whitespace outside body, the newline
// after <pre>, raw text of noscript/iframe/noembed, the select element's implied option closes), the
// builder produces it; everything else is rejected. Linear: O(1) work per token, and each raw-text
// element's end is searched once from its start.
import { Tokenizer, type TokenizerCallbacks } from 'htmlparser2';
import { html as p5 } from 'parse5';
import { adapter } from 'parse5-htmlparser2-tree-adapter';
import {
  AFTER_HEAD,
  CLOSES_P,
  decode,
  doctypeOf,
  END_TAG,
  HEADINGS,
  IN_HEAD,
  isSpecial,
  NO_ATTRIBUTES,
  NS_HTML,
  RAW_TEXT,
  reject,
  REJECT,
  rejection,
  REJECT_IN_BODY,
  START_TAG,
  svgElement,
  TABLE_CHILDREN,
  TOKENIZER_SPECIAL,
  VOID,
  WS_ONLY,
  type Attr,
  type Doc,
  type El,
  type Parent,
} from './fast-parse-rules.js';

interface Frame {
  el: El;
  name: string;
  /** An SVG element (foreign content). */
  svg: boolean;
  /** A tbody the standard inserted for a tr directly in table. */
  implied?: boolean;
  /** Walking down from here, would an li (resp. dd/dt) start tag close an element (true) or stop first? */
  liCloses: boolean;
  ddCloses: boolean;
}

const enum Phase {
  Initial,
  BeforeHead,
  InHead,
  AfterHead,
  InBody,
  AfterBody,
  AfterAfterBody,
}

class Builder implements TokenizerCallbacks {
  readonly doc: Doc = adapter.createDocument();
  private phase = Phase.Initial;
  private stack: Frame[] = [];
  private html: El | null = null;
  private body: El | null = null;
  private sawDoctype = false;
  /** Next input offset no token has covered yet. */
  private pos = 0;
  /** Open HTML elements by name (headings together as "heading"). */
  private open = Object.create(null) as Record<string, number>;
  private skipLf = false;
  /** Inside a raw-text element: where its end tag starts; -1 otherwise. */
  private rawEnd = -1;
  private rawStart = 0;
  private tagStart = 0;
  private tagName = '';
  private attrs: Attr[] = [];
  private attrName = '';
  private attrValue = '';
  private attrNames: Set<string> | null = null;

  constructor(private readonly src: string) {}

  private get top(): Frame {
    return this.stack[this.stack.length - 1];
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

  private push(el: El, name: string, svg = false): void {
    const below = this.top;
    const blocks = svg || (isSpecial(name) && name !== 'address' && name !== 'div' && name !== 'p');
    this.stack.push({
      el,
      name,
      svg,
      liCloses: name === 'li' || (!blocks && !!below?.liCloses),
      ddCloses: name === 'dd' || name === 'dt' || (!blocks && !!below?.ddCloses),
    });
    if (!svg) this.count(name, 1);
  }

  private pop(): void {
    const frame = this.stack.pop()!;
    if (!frame.svg) this.count(frame.name, -1);
  }

  private count(name: string, by: number): void {
    if (HEADINGS.has(name)) this.open.heading = (this.open.heading ?? 0) + by;
    this.open[name] = (this.open[name] ?? 0) + by;
  }

  private isOpen(name: string): boolean {
    return (this.open[name] ?? 0) > 0;
  }

  private element(name: string, attrs: Attr[], parent: Parent): El {
    const el = adapter.createElement(name, NS_HTML, attrs);
    // Most elements have no attributes: their (never written) namespace and prefix maps are one shared
    // empty map instead of two each, which halves what a page's tree keeps alive. html and body keep
    // their own: a later <html>/<body> tag adds to them.
    if (attrs.length === 0 && name !== 'html' && name !== 'body') {
      el['x-attribsNamespace'] = NO_ATTRIBUTES;
      el['x-attribsPrefix'] = NO_ATTRIBUTES;
    }
    adapter.appendChild(parent, el);
    return el;
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

  private text(text: string): void {
    if (this.skipLf) {
      this.skipLf = false;
      if (text.charCodeAt(0) === 0x0a) text = text.slice(1);
      if (text === '') return;
    }
    const top = this.top;
    if (top && (TOKENIZER_SPECIAL.has(top.name) || top.svg)) return adapter.insertText(top.el, text);
    const ws = WS_ONLY.test(text);
    switch (this.phase) {
      case Phase.Initial:
      case Phase.BeforeHead:
        if (!ws) reject('text before head');
        return; // the standard drops whitespace before head
      case Phase.InHead:
        if (!ws) reject('text in head');
        adapter.insertText(this.top.el, text);
        return;
      case Phase.AfterHead:
        if (!ws) reject('text after head');
        adapter.insertText(this.html!, text);
        return;
      case Phase.InBody:
        // Text other than whitespace directly in a table part is foster-parented by the standard.
        if (!ws && TABLE_CHILDREN.has(this.top.name)) reject('text in table');
        adapter.insertText(this.top.el, text);
        return;
      default:
        // Text after </body> or </html> goes to the end of body; other than whitespace, it goes back to body.
        if (!ws) this.phase = Phase.InBody;
        adapter.insertText(this.body!, text);
    }
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

  private startTag(name: string, attrs: Attr[], after: number): void {
    switch (this.phase) {
      case Phase.Initial:
        if (!this.sawDoctype) adapter.setDocumentMode(this.doc, p5.DOCUMENT_MODE.QUIRKS);
        this.html = this.element('html', name === 'html' ? attrs : [], this.doc);
        this.push(this.html, 'html');
        this.phase = Phase.BeforeHead;
        if (name !== 'html') this.startTag(name, attrs, after);
        return;
      case Phase.BeforeHead: {
        const head = this.element('head', name === 'head' ? attrs : [], this.html!);
        this.push(head, 'head');
        this.phase = Phase.InHead;
        if (name !== 'head') this.startTag(name, attrs, after);
        return;
      }
      case Phase.InHead:
        if (this.top.name !== 'head') reject('head');
        if (name === 'head') return; // a second head start tag is ignored
        if (IN_HEAD.has(name)) return this.insert(name, attrs, after);
        // Anything else ends head, as </head> would.
        this.pop();
        this.phase = Phase.AfterHead;
        return this.startTag(name, attrs, after);
      case Phase.AfterHead:
        if (name === 'head') return;
        if (AFTER_HEAD.has(name)) {
          // Still inserted into head: the head element is the parent, the stack is as before.
          const head = this.html!.children.find((n) => (n as El).name === 'head') as El;
          const el = this.element(name, attrs, head);
          if (!VOID.has(name)) this.push(el, name);
          return;
        }
        if (IN_HEAD.has(name) || name === 'frameset' || name === 'template') reject(`<${name}> after head`);
        this.body = this.element('body', name === 'body' ? attrs : [], this.html!);
        this.push(this.body, 'body');
        this.phase = Phase.InBody;
        if (name !== 'body') this.startTag(name, attrs, after);
        return;
      case Phase.InBody:
        return this.bodyStartTag(name, attrs, after);
      default:
        // After </body> or </html>, the standard goes back to body (still the current element).
        this.phase = Phase.InBody;
        return this.bodyStartTag(name, attrs, after);
    }
  }

  private bodyStartTag(name: string, attrs: Attr[], after: number): void {
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

  /** html and body start tags after the first add their new attributes to the existing element. */
  private adopted(name: string, attrs: Attr[]): boolean {
    if (name !== 'html' && name !== 'body') return false;
    if (this.phase === Phase.Initial || (name === 'html' && this.phase === Phase.BeforeHead && !this.html))
      return false;
    if (name === 'body' && this.phase !== Phase.InBody) return false;
    if (this.phase > Phase.InBody || this.isOpen('select') || TABLE_CHILDREN.has(this.top.name)) reject(`<${name}>`);
    adapter.adoptAttributes(name === 'html' ? this.html! : this.body!, attrs);
    return true;
  }

  private foreignStartTag(name: string, attrs: Attr[], selfClosing: boolean): void {
    const top = this.top;
    const { el, tagName } = svgElement(name, attrs, selfClosing, top.svg ? top.name : null);
    adapter.appendChild(top.el, el);
    if (!selfClosing) this.push(el, tagName, true);
  }

  private insert(name: string, attrs: Attr[], after: number): void {
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

  private endTag(name: string): void {
    const top = this.top?.name;
    if (this.top?.svg) {
      if (name !== top.toLowerCase()) reject(`</${name}> closing <${top}>`);
      return this.pop();
    }
    // An end tag for a void element is ignored by the standard (br excepted), and by htmlparser2.
    if (VOID.has(name) && name !== 'br' && (this.phase === Phase.InHead || this.phase === Phase.InBody)) {
      if (!this.isOpen('select') && !TABLE_CHILDREN.has(top)) return;
    }
    switch (this.phase) {
      case Phase.InHead:
        if (name !== top) reject(`</${name}> in head`);
        this.pop();
        if (name === 'head') this.phase = Phase.AfterHead;
        return;
      case Phase.AfterHead:
        // The end of an element put into head after </head> (script, style, title).
        if (name !== top || !AFTER_HEAD.has(name)) reject(`</${name}> after head`);
        return this.pop();
      case Phase.InBody:
        if ((name === 'body' || name === 'html') && top === 'body') {
          // The standard keeps body and html open: later whitespace still goes into body.
          this.phase = name === 'body' ? Phase.AfterBody : Phase.AfterAfterBody;
          return;
        }
        if (this.isOpen('select')) {
          if (name === 'optgroup' && top === 'option' && this.stack[this.stack.length - 2].name === 'optgroup')
            this.pop();
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
        return reject(`</${name}> closing <${this.top.name}>`);
      case Phase.AfterBody:
      case Phase.AfterAfterBody:
        if (name === 'html' && this.phase === Phase.AfterBody) {
          this.phase = Phase.AfterAfterBody;
          return;
        }
        this.phase = Phase.InBody;
        return this.endTag(name);
      default:
        reject(`</${name}> before body`);
    }
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

  private comment(data: string): void {
    this.skipLf = false;
    const parent =
      this.phase === Phase.Initial || this.phase === Phase.AfterAfterBody
        ? this.doc
        : this.phase === Phase.AfterBody
          ? this.html!
          : this.top.el;
    adapter.appendChild(parent, adapter.createCommentNode(data));
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
