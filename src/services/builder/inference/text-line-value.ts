// Values written as lines of text, each after its label, in one element ("Adres: Stationsstraat 75<br>
// Tel: 043-4083625<br>KVK-nummer: 14626903"): no element holds the label or the value alone, so the field
// reads the text line that opens with the label (an XPath to the text node) and keeps what follows the
// colon (a regex). The label names the prompt's word as labelled-value.ts reads labels.
import type { CheerioAPI } from 'cheerio';
import type { AgentField } from '../../../engine/definition.js';
import { labelNaming } from './labelled-value.js';
import { isElement, type Element } from './selectors.js';
import { escapeRegex, SPACE } from './regex-text.js';

/** A label, a colon and a value on one line of text: the label at most 40 characters, the value 200. */
const LINE = /^([^:：]{1,40}?)\s*[:：]\s*\S.{0,199}$/su;
/** A label and its colon alone, the value in the element after it ("E-mail: <a>info@...</a>"). */
const LABEL_ONLY = /^([^:：]{1,40}?)\s*[:：]$/u;
/** Text lines read per page at most, in page order. */
const MAX_LINES = 20_000;

interface Line {
  /** The line as XPath's normalize-space() gives it: ASCII spaces collapsed, others kept. */
  text: string;
  /** Its label before the colon, or '' when it opens with none. */
  label: string;
  /** The line is its label and colon alone, and the element right after it shows text: its value. */
  before: boolean;
}

// The labelled lines of a page, read once per page (each request asks again).
const pageLines = new WeakMap<object, Line[]>();

function linesOf($: CheerioAPI): Line[] {
  const root = $.root()[0];
  let lines = pageLines.get(root);
  if (lines) return lines;
  lines = [];
  const body = $('body')[0] as Element | undefined;
  let seen = 0;
  const visit = (el: Element) => {
    for (const child of el.children ?? []) {
      if (seen >= MAX_LINES) return;
      if (isElement(child)) {
        if (!['script', 'style', 'noscript', 'template', 'select', 'option'].includes(child.name)) visit(child);
      } else if (child.type === 'text') {
        seen++;
        const text = (child as unknown as { data: string }).data.replace(/[ \t\n\r]+/g, ' ').trim();
        const alone = LABEL_ONLY.exec(text)?.[1];
        const next = alone ? nextElement(child) : undefined;
        const before = next !== undefined && $(next).text().trim() !== '';
        lines.push({ text, label: (before ? alone : LINE.exec(text)?.[1]) ?? '', before });
      }
    }
  };
  if (body) visit(body);
  pageLines.set(root, lines);
  return lines;
}

function nextElement(node: { next: unknown }): Element | undefined {
  for (let n = node.next as { next: unknown; type?: string; data?: string } | null; n; n = n.next as typeof n) {
    if (isElement(n as Element)) return n as Element;
    if (n.type === 'text' && (n.data ?? '').trim() !== '') return undefined;
  }
  return undefined;
}

/**
 * The field reading the value after the best label naming `word` (or one of `conceptWords`) on a line
 * of text of its own, or undefined. Only the first line opening with that label and its colon is read,
 * as the engine reads the XPath's first match; a label that an earlier line opens with too is passed over.
 */
export function textLineField(
  $: CheerioAPI,
  name: string,
  word: string,
  conceptWords: readonly string[] = [],
): AgentField | undefined {
  const lines = linesOf($);
  const names = labelNaming(word, conceptWords);
  let best: { line: Line; rank: number } | undefined;
  for (const line of lines) {
    if (line.label === '') continue;
    const rank = names(line.label);
    if (rank !== undefined && (!best || rank < best.rank)) best = { line, rank };
  }
  if (!best || /['"]/.test(best.line.label)) return undefined;
  const { label, text } = best.line;
  // The line's opening up to its colon ("Tel:"), so that "Telefonische bereikbaarheid:" is not read.
  const opening = text.slice(0, text.search(/[:：]/) + 1);
  const first = lines.find((l) => l.text.startsWith(opening));
  if (first !== best.line) return undefined;
  const xpath = `//body//text()[starts-with(normalize-space(.), '${opening}')]`;
  if (best.line.before) return { name, xpath: `${xpath}/following-sibling::*[1]`, transform: 'trim' };
  return {
    name,
    xpath,
    transform: [
      { regex: `^${SPACE}*${escapeRegex(label)}${SPACE}*[:：]${SPACE}*(.+?)${SPACE}*$`, group: 1, flags: 's' },
    ],
  };
}
