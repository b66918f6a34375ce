// The tree-building half of the fast parse path (fast-parse.ts holds the tokenizer callbacks and the
// subset's rules for tags in body): the stack of open elements, elements, text and comments made with
// parse5's own tree adapter, and the document's html/head/body shape, i.e. what start tags, end tags, text
// and comments do in each insertion phase outside body. Apart so that each half reads on its own; the
// subclass decides what a tag in body does and where a raw-text element ends.
import { html as p5 } from 'parse5';
import { adapter } from 'parse5-htmlparser2-tree-adapter';
import {
  AFTER_HEAD,
  HEADINGS,
  IN_HEAD,
  isSpecial,
  NO_ATTRIBUTES,
  NS_HTML,
  reject,
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

export const enum Phase {
  Initial,
  BeforeHead,
  InHead,
  AfterHead,
  InBody,
  AfterBody,
  AfterAfterBody,
}

export abstract class TreeBuilder {
  readonly doc: Doc = adapter.createDocument();
  protected phase = Phase.Initial;
  protected stack: Frame[] = [];
  private html: El | null = null;
  private body: El | null = null;
  protected sawDoctype = false;
  /** Open HTML elements by name (headings together as "heading"). */
  protected open = Object.create(null) as Record<string, number>;
  protected skipLf = false;

  /** A start tag in body (after the document's shape is in place). */
  protected abstract bodyStartTag(name: string, attrs: Attr[], after: number): void;
  /** An end tag in body. */
  protected abstract bodyEndTag(name: string): void;
  /** Inserts an element as a child of the current one; `after` is where its start tag ends. */
  protected abstract insert(name: string, attrs: Attr[], after: number): void;

  protected get top(): Frame {
    return this.stack[this.stack.length - 1];
  }

  protected push(el: El, name: string, svg = false): void {
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

  protected pop(): void {
    const frame = this.stack.pop()!;
    if (!frame.svg) this.count(frame.name, -1);
  }

  private count(name: string, by: number): void {
    if (HEADINGS.has(name)) this.open.heading = (this.open.heading ?? 0) + by;
    this.open[name] = (this.open[name] ?? 0) + by;
  }

  protected isOpen(name: string): boolean {
    return (this.open[name] ?? 0) > 0;
  }

  protected element(name: string, attrs: Attr[], parent: Parent): El {
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

  protected text(text: string): void {
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

  protected comment(data: string): void {
    this.skipLf = false;
    const parent =
      this.phase === Phase.Initial || this.phase === Phase.AfterAfterBody
        ? this.doc
        : this.phase === Phase.AfterBody
          ? this.html!
          : this.top.el;
    adapter.appendChild(parent, adapter.createCommentNode(data));
  }

  /** A start tag: before and after body the document's shape decides, in body the subclass. */
  protected startTag(name: string, attrs: Attr[], after: number): void {
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

  /** An end tag: before and after body the document's shape decides, in body the subclass. */
  protected endTag(name: string): void {
    switch (this.phase) {
      case Phase.InHead:
        // An end tag for a void element is ignored by the standard (br excepted), and by htmlparser2.
        if (VOID.has(name) && name !== 'br') return;
        if (name !== this.top.name) reject(`</${name}> in head`);
        this.pop();
        if (name === 'head') this.phase = Phase.AfterHead;
        return;
      case Phase.AfterHead:
        // The end of an element put into head after </head> (script, style, title).
        if (name !== this.top.name || !AFTER_HEAD.has(name)) reject(`</${name}> after head`);
        return this.pop();
      case Phase.InBody:
        return this.bodyEndTag(name);
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

  /** html and body start tags after the first add their new attributes to the existing element. */
  protected adopted(name: string, attrs: Attr[]): boolean {
    if (name !== 'html' && name !== 'body') return false;
    if (this.phase === Phase.Initial || (name === 'html' && this.phase === Phase.BeforeHead && !this.html))
      return false;
    if (name === 'body' && this.phase !== Phase.InBody) return false;
    if (this.phase > Phase.InBody || this.isOpen('select') || TABLE_CHILDREN.has(this.top.name)) reject(`<${name}>`);
    adapter.adoptAttributes(name === 'html' ? this.html! : this.body!, attrs);
    return true;
  }

  protected foreignStartTag(name: string, attrs: Attr[], selfClosing: boolean): void {
    const top = this.top;
    const { el, tagName } = svgElement(name, attrs, selfClosing, top.svg ? top.name : null);
    adapter.appendChild(top.el, el);
    if (!selfClosing) this.push(el, tagName, true);
  }
}
