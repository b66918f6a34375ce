// Titles that a page writes inside typographic quotes as a whole («Мастер и Маргарита», „Der Process“,
// 「羅生門」): the quotes mark the value as a title, they are not part of it. A title that holds
// quotes inside a longer text (Презентация книги «#Мясомясо») keeps them, and so does any other value: a
// quotation's quotes are part of what it quotes.
import type { AgentField } from '../../../engine/definition.js';
import { conceptOfWord } from './naming.js';

/**
 * Opening quotes that mark a title (guillemets, low quotes, corner brackets) and the closing quotes they
 * pair with; none of them may stand inside the quoted value. English curly quotes are left out: a heading
 * in “…” is as often a quotation (a testimonial's line) as a title, and a quotation keeps its quotes.
 */
const OPEN = '«„‚「『‹';
const CLOSE = '»“”‘’」』›';
const ENCLOSED = new RegExp(`^\\s*[${OPEN}]([^${OPEN}${CLOSE}]+)[${CLOSE}]\\s*$`, 'u');
/** The engine's step: the same pattern (RE2 reads it too), replaced by the text inside the quotes. */
const UNQUOTE_STEP = { replace: ENCLOSED.source, with: '$1' };

/** Share of a field's values that must be wholly quoted for the quotes to be the page's way of writing it. */
const QUOTED_SHARE = 0.5;

type Step = Exclude<NonNullable<AgentField['transform']>, unknown[]>;

/** A title field, its values freed of the typographic quotes around them when most values are written so. */
export function withoutEnclosingQuotes(field: AgentField, values: string[]): AgentField {
  if (conceptOfWord(field.name.split('_')[0]) !== 'title' && conceptOfWord(field.name) !== 'title') return field;
  if (field.attribute && !['text', 'ownText', 'title', 'alt'].includes(field.attribute)) return field;
  const steps: Step[] =
    field.transform === undefined ? [] : Array.isArray(field.transform) ? field.transform : [field.transform];
  if (steps.some((s) => s !== 'trim')) return field;
  const present = values.filter((v) => v.trim() !== '');
  if (present.length === 0 || present.filter((v) => ENCLOSED.test(v)).length < QUOTED_SHARE * present.length)
    return field;
  return { ...field, transform: ['trim', UNQUOTE_STEP] };
}
