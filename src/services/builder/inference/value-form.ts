// The last look at a draft's fields, on the values they give on the page: each field is named as the
// prompt writes its word ("number of rooms" -> rooms), and a value written after a label in the same
// text ("Available from 16.02.2017", "Published: July 25, 2010", "by Bob Yirka, Phys.org") loses the
// label, so the field holds the value alone.
import type { CheerioAPI } from 'cheerio';
import type { AgentField } from '../../../engine/definition.js';
import { extractField } from '../../../engine/extract.js';
import type { Document } from '../../../engine/select.js';
import { BYLINE_VERB } from './byline.js';
import { aroundDate } from './date-shape.js';
import { normalizeText } from './dom-text.js';
import { withoutEnclosingQuotes } from './enclosing-quotes.js';
import { withoutBadge } from './title-badge.js';
import { FOOTNOTE_MARK } from './own-word-label.js';
import { conceptOfValues, conceptOfWord, fieldName, type Concept } from './naming.js';
import { writtenName, type PromptRequest } from './prompt-requests.js';
import { escapeRegex } from './regex-text.js';

/** Records read to see what a field's values look like. */
const RECORDS_READ = 20;
/** A label is a few words: longer shared openings are part of the values. */
const LABEL_MAX_LENGTH = 30;
const LABEL_MAX_WORDS = 3;
/** Below this many values, a shared opening may be chance: only a label ending in ':' counts. */
const VALUES_FOR_SHARED_LABEL = 3;

/** Concepts whose values have a shape of their own, so that words before that shape are a label. */
const SHAPED = new Set<Concept>(['date', 'price', 'salary', 'quantity', 'duration', 'year', 'rank', 'phone', 'email']);

/** "by", "von", "par"...: the word before an author's name in a byline. */
const BY = '(?:by|von|par|por|de|di|da|door|van|af|av)';
const BYLINE = new RegExp(`^\\s*(?:${BYLINE_VERB}\\s+)?${BY}\\s+\\S`, 'i');
/**
 * A byline's author: after "by" (or "Posted by"), up to a comma or bar before the site's name or the author's place
 * ("by Bob Yirka, Phys.org", "Von Markus Balser, Berlin").
 */
const BYLINE_STEP = {
  // RE2's \\s is ASCII: a no-break space after "By" is named.
  regex: `^[\\s\\x{00A0}]*(?:${BYLINE_VERB}[\\s\\x{00A0}]+)?${BY}[\\s\\x{00A0}]+(.+?)(?:\\s*[,|].*)?$`,
  group: 1,
  flags: 'is',
};

/**
 * A Japanese or Chinese byline's opening: "文" (text by), after what else the person did ("取材・文"), and a
 * mark before the name ("文● オカモト", "文／山田", "文：李明"). A pattern of RE2 and JavaScript alike.
 */
const CJK_BYLINE = /^\s*(?:(?:取材|写真|構成|撮影|编辑|編集)[・、/／])*(?:文|作者|記者|记者)\s*[●■◎／/：:＝=|｜]\s*/u;

/** The page the draft is for (as the draft has it). */
export interface BuilderPage {
  $: CheerioAPI;
  url: string;
}

/** The words every value opens with, up to a word boundary, when they look like a label. */
function sharedLabel(values: string[], concept: Concept | undefined): string | undefined {
  let prefix = values[0];
  for (const v of values.slice(1)) {
    let i = 0;
    while (i < prefix.length && i < v.length && prefix[i] === v[i]) i++;
    prefix = prefix.slice(0, i);
  }
  // Up to the last word boundary that every value has after it (a space or the label's colon).
  const cut = prefix.match(/^(.*?[\p{L}.)]\s*:|.*\p{L}(?=\s))/su)?.[0];
  if (!cut) return undefined;
  const label = prefix.slice(0, cut.length).trim();
  if (label.length === 0 || label.length > LABEL_MAX_LENGTH || /\d/.test(label)) return undefined;
  if (!values.every((v) => v.trim().length > label.length + 1)) return undefined;
  // A heading's or a text's own colon ("Skyrim: Part 1") is no label.
  if (label.split(/\s+/).length > LABEL_MAX_WORDS || concept === 'title' || concept === 'description') return undefined;
  // Nor is a section's or series' own in a value or two ("Seascape: the state of our oceans"); the same
  // words opening many categories still are a label.
  if (concept === 'category' && values.length < VALUES_FOR_SHARED_LABEL) return undefined;
  if (label.endsWith(':')) return label;
  if (values.length < VALUES_FOR_SHARED_LABEL) return undefined;
  // What follows the label is shaped like a value (a date, a price), of the concept the field is named for.
  const rests = values.map((v) => v.trim().slice(label.length).trim());
  const shape = conceptOfValues(rests);
  const otherShape = concept !== undefined && SHAPED.has(concept) && concept !== shape;
  return shape !== undefined && SHAPED.has(shape) && !otherShape ? label : undefined;
}

/**
 * A date written after the same few words in every value ("Posted July 11, 2019.", "Aktualisiert am
 * 3. Mai 2020"), a detail page's single value too: the words are a label and a full stop after the date
 * ends the sentence, neither is the date. A weekday before its date ("Monday, 12 May") is the date's.
 */
function dateAfterLabel(values: string[]): Step[] | undefined {
  const parts = values.map(aroundDate);
  const label = parts[0]?.before.trim() ?? '';
  if (label === '' || /[\d,]/.test(label) || label.split(/\s+/).length > LABEL_MAX_WORDS) return undefined;
  if (!parts.every((p) => p && p.before.trim() === label && /^[.;]?$/.test(p.after.trim()))) return undefined;
  // RE2's \\s is ASCII: the no-break space often written after such a label is named.
  const space = '[\\s\\x{00A0}]';
  const pattern = `^${space}*${label.split(/\s+/).map(escapeRegex).join(`${space}+`)}${space}*`;
  return ['trim', { replace: pattern, with: '' }, { replace: `${space}*[.;]$`, with: '' }];
}

/**
 * A date followed by nothing but a separator left dangling by the page's layout ("01 Mar 2016 - ",
 * where a snippet would follow the dash): the separator is no part of the date.
 */
function dateBeforeSeparator(values: string[]): Step[] | undefined {
  const parts = values.map(aroundDate);
  if (!parts.every((p) => p && p.before.trim() === '' && /^[-–—|·:,]$/.test(p.after.trim()))) return undefined;
  return ['trim', { replace: '[\\s\\x{00A0}]*[-–—|·:,]$', with: '' }];
}

type Step = Exclude<NonNullable<AgentField['transform']>, unknown[]>;

function stepsOf(field: AgentField): Step[] {
  return field.transform === undefined ? [] : Array.isArray(field.transform) ? field.transform : [field.transform];
}

/** The field with its value freed of a label written before it, judged on its values on the page. */
function withoutLabel(field: AgentField, values: string[]): AgentField {
  const concept = conceptOfWord(field.name.split('_')[0]) ?? conceptOfWord(field.name);
  if (field.attribute && field.attribute !== 'text' && field.attribute !== 'ownText') return field;
  if (concept === 'link' || concept === 'image') return field;
  const steps = stepsOf(field);
  if (steps.some((s) => s !== 'trim')) return field;
  const present = values.map((v) => v.replace(/\s+/g, ' ').trim()).filter((v) => v !== '');
  if (present.length === 0) return field;
  if (concept === 'author' && present.every((v) => BYLINE.test(v)))
    return { ...field, transform: [...steps, BYLINE_STEP] };
  if (concept === 'author' && present.every((v) => CJK_BYLINE.test(v)))
    return { ...field, transform: ['trim', { replace: CJK_BYLINE.source, with: '' }] };
  if (concept === 'date') {
    const dated = dateAfterLabel(present) ?? dateBeforeSeparator(present);
    if (dated) return { ...field, transform: dated };
  }
  const label = sharedLabel(present, concept);
  if (!label) return field;
  const pattern = `^\\s*${label.split(/\s+/).map(escapeRegex).join('\\s+')}\\s*`;
  // A price after its label ("Eintritt: 25,00 €") is a number once the label is gone, as a bare one is.
  const after = present.map((v) => v.slice(v.indexOf(label) + label.length).trim());
  const amount = concept === 'price' && (after.every((v) => BARE_AMOUNT.test(v)) || conceptOfValues(after) === 'price');
  return { ...field, transform: ['trim', { replace: pattern, with: '' }, ...(amount ? ['number' as const] : [])] };
}

/** Text lines broken by <br> ("Buttmannstraße 17<br>13357 Berlin"): the element's text would run them together. */
const LINES_AS_WORDS: Step[] = [
  { replace: '<br\\s*/?>', with: ' ' },
  { replace: '<[^>]*>', with: '' },
  { replace: '&nbsp;', with: ' ' },
  { replace: '&lt;', with: '<' },
  { replace: '&gt;', with: '>' },
  { replace: '&amp;', with: '&' },
  'trim',
];

function brokenIntoLines(page: BuilderPage, records: unknown[], field: AgentField): boolean {
  if (field.xpath || (field.attribute && field.attribute !== 'text')) return false;
  const broken = records.filter((el) => {
    const target = field.selector
      ? page
          .$(el as never)
          .find(field.selector)
          .first()
      : page.$(el as never);
    return target.find('br').length > 0 && target.children().length <= target.find('br').length + 2;
  });
  return broken.length >= 0.5 * records.length;
}

/**
 * A text whose element ends in a box of links (a search result's "In Context | Full Chapter | Other
 * Translations", a teaser's "Read more | Share"): the links are things to do with the record, not its
 * text. The field reads the element's HTML up to that box, then its text, when most records end so.
 */
function withoutTrailingLinks(page: BuilderPage, records: unknown[], field: AgentField): AgentField {
  if (field.xpath || (field.attribute && field.attribute !== 'text')) return field;
  if (field.transform !== undefined && field.transform !== 'trim') return field;
  const $ = page.$;
  const classes = records.map((el) => {
    const target = field.selector
      ? $(el as never)
          .find(field.selector)
          .first()
      : $(el as never);
    const box = target.children().last();
    const cls = (box.attr('class') ?? '').trim().split(/\s+/)[0];
    const links = box.find('a').length;
    const rest = normalizeText(box.text().replace(/\s+/g, ' ')).length;
    const linkText = box
      .find('a')
      .toArray()
      .reduce((n, a) => n + normalizeText($(a).text()).length, 0);
    const own = normalizeText(target.text()).length;
    // Two links or more and little else but their separators, after some text of the element's own.
    return box.length > 0 && cls && links >= 2 && rest - linkText <= 2 * links && own - rest > rest ? cls : undefined;
  });
  const cls = classes[0];
  if (!cls || !/^[\w-]+$/.test(cls) || classes.filter((c) => c === cls).length < 0.8 * records.length) return field;
  const cut = { replace: `<[a-z]+[^>]*class="(?:[^"]*\\s)?${cls}(?:\\s[^"]*)?"[^>]*>(?s:.*)$`, with: '' };
  return { ...field, attribute: 'html', transform: [cut, ...LINES_AS_WORDS] };
}

/** "1.150 €": the engine's number transform reads the dot as a decimal point; thousands dots are dropped first. */
function withThousandsDots(field: AgentField, values: string[]): AgentField {
  if (field.transform !== 'number') return field;
  const dotted = values.filter((v) => /\d\.\d{3}(?!\d)/.test(v)).length;
  if (dotted === 0 || values.some((v) => /\d\.\d{1,2}(?!\d)/.test(v) || /\d,\d{3}(?!\d)/.test(v))) return field;
  return { ...field, transform: [{ replace: '(\\d)\\.(\\d{3})', with: '$1$2' }, 'number'] };
}

/** A bare amount: digits grouped by spaces, dots or commas, nothing else ("1 990", "2.350,00"). */
const BARE_AMOUNT = /^\s*\d[\d\s.,\u00A0]*\s*$/;

/**
 * A price whose currency sits in an element of its own (<span>1 990</span> <span>руб.</span>): the field
 * asked for as a price holds bare amounts, read as numbers as a price with its currency is.
 */
function asAmount(field: AgentField, values: string[]): AgentField {
  if (field.transform !== undefined && field.transform !== 'trim') return field;
  if (field.attribute && field.attribute !== 'text' && field.attribute !== 'ownText') return field;
  if (conceptOfWord(field.name.split('_')[0]) !== 'price' && conceptOfWord(field.name) !== 'price') return field;
  const present = values.filter((v) => v.trim() !== '');
  return present.length > 0 && present.every((v) => BARE_AMOUNT.test(v)) ? { ...field, transform: 'number' } : field;
}

/** Values that carry footnote marks lose them (before any other step). */
function withoutFootnoteMarks(field: AgentField, values: string[]): AgentField {
  const mark = new RegExp(FOOTNOTE_MARK, 'i');
  if (values.length === 0 || values.filter((v) => mark.test(v)).length < 0.5 * values.length) return field;
  const steps =
    field.transform === undefined ? [] : Array.isArray(field.transform) ? field.transform : [field.transform];
  return { ...field, transform: [{ replace: FOOTNOTE_MARK, with: '', flags: 'i' }, ...steps] };
}

/** The text each of the first records gives for a field (nulls and non-text values left out). */
export function sampleValues(page: BuilderPage, records: unknown[], field: AgentField): string[] {
  const root = page.$.root()[0];
  return records.flatMap((el) => {
    const v = extractField(root, el as Document, { ...field, transform: undefined }, page.url);
    return typeof v === 'string' ? [v] : [];
  });
}

/** Names fields as the prompt writes their words and frees values of the labels written before them. */
export function finishFields(
  fields: AgentField[],
  page: BuilderPage,
  /** The records' selector; none for a detail page's fields, which are only named. */
  listSelector: string | undefined,
  requests: PromptRequest[],
): AgentField[] {
  const records = listSelector ? page.$(listSelector).toArray().slice(0, RECORDS_READ) : [];
  const taken = new Set(fields.map((f) => f.name));
  return fields.map((field) => {
    const request = requests.find((r) => fieldName(r.word) === field.name);
    let named = field;
    if (request) {
      const name = writtenName(request);
      if (name !== field.name && !taken.has(name)) {
        taken.add(name);
        named = { ...field, name };
      }
    }
    if (named.fields || named.multiple || records.length === 0) return named;
    const values = sampleValues(page, records, named);
    if (brokenIntoLines(page, records, named) && (named.transform === undefined || named.transform === 'trim'))
      return { ...named, attribute: 'html', transform: LINES_AS_WORDS };
    const unlinked = withoutTrailingLinks(page, records, named);
    if (unlinked !== named) return unlinked;
    const unbadged = withoutBadge(page, records, named);
    if (unbadged !== named) return unbadged;
    return withoutFootnoteMarks(
      withThousandsDots(asAmount(withoutEnclosingQuotes(withoutLabel(named, values), values), values), values),
      values,
    );
  });
}
