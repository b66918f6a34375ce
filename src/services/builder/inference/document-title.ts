// A page's title read from its <title> when no heading and no metadata show it (pages laid out in
// tables, with the title as a line of text): documents name themselves there, most often with the
// site's name before or after a separator ("Story | Site", "欲張りなイヌ ＜福娘童話集＞"). Of the parts
// around the separators, the one the page's body also shows is the title; the field keeps the rule, not
// the value, so that it reads every page of the site alike.
import type { CheerioAPI } from 'cheerio';
import type { AgentField } from '../../../engine/definition.js';
import { SPACE } from './regex-text.js';

/** Between a title and the site's name: a bar, a dash or a dot between spaces, an opening bracket. */
const SEPARATOR = `${SPACE}+[|｜·•–—-]${SPACE}+|${SPACE}*[｜＜«【]${SPACE}*|${SPACE}+::${SPACE}+`;
const SPLIT = new RegExp(SEPARATOR, 'u');
/** A part shorter than this is a symbol or an initial, not a title. */
const MIN_PART_LENGTH = 2;

const normalize = (text: string) => text.replace(/\s+/g, ' ').trim();

/** The field reading the page's title from its <title>, or undefined when the body shows no part of it. */
export function documentTitleField($: CheerioAPI, name: string): AgentField | undefined {
  const selector = 'head > title';
  const text = normalize($(selector).first().text());
  if (text === '') return undefined;
  const body = normalize($('body').text());
  const shown = (part: string | undefined) =>
    part !== undefined && part.length >= MIN_PART_LENGTH && body.includes(part) ? part : undefined;
  const parts = text
    .split(SPLIT)
    .map(normalize)
    .filter((p) => p !== '');
  if (parts.length === 1) return shown(text) ? { name, selector, transform: 'trim' } : undefined;
  const first = shown(parts[0]);
  const last = shown(parts[parts.length - 1]);
  // Both shown (the site's name in its header): the title is the longer.
  if (first && (!last || first.length >= last.length))
    return { name, selector, transform: [{ regex: `^${SPACE}*(.+?)(?:${SEPARATOR})`, group: 1 }] };
  if (last) return { name, selector, transform: [{ regex: `^.*(?:${SEPARATOR})${SPACE}*(.+?)${SPACE}*$`, group: 1 }] };
  return undefined;
}
