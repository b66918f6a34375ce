// Records the prompt names by what they read like, where the page names them nowhere: a recipe's
// ingredients under a heading of the recipe's own name ("Recipe: Orange Juice Carrots"), in a list with
// no class. An ingredient line reads like an amount and a thing ("1/4 tsp. salt", "200 g de farine",
// "大さじ1"), in every language the same way: a quantity first, or a quantity beside a unit of measure.
// Kept as data: a unit is added by adding a word.
import { subtreeText } from './dom-text.js';
import type { Element } from './selectors.js';
import type { TopicFit } from './topic.js';

/** As much as records named like the prompt's noun by their heading or classes (topic.ts). */
const SHAPED_FACTOR = 6;
/** Records read at most, and the share of them that must read like the noun. */
const MAX_READ = 40;
const MIN_SHARE = 0.6;
const MIN_RECORDS = 3;
/** Ingredient lines are short: longer items are steps or paragraphs that mention amounts. */
const MAX_AVERAGE_LENGTH = 120;

/** Units of measure of recipes, as written after a quantity (lower case; a trailing dot is allowed). */
const UNITS = [
  // Metric and imperial, abbreviated and written out.
  'g',
  'gr',
  'grs',
  'gram',
  'grams',
  'gramm',
  'grammes',
  'gramos',
  'gramas',
  'grammi',
  'kg',
  'mg',
  'ml',
  'cl',
  'dl',
  'l',
  'oz',
  'lb',
  'lbs',
  'pound',
  'pounds',
  'ounce',
  'ounces',
  // Spoons, cups and pinches.
  'tsp',
  'tbsp',
  'tbs',
  'tbl',
  'teaspoon',
  'teaspoons',
  'tablespoon',
  'tablespoons',
  'cup',
  'cups',
  'pinch',
  'el',
  'tl',
  'msp',
  'prise',
  'becher',
  'tasse',
  'tassen',
  'cs',
  'cc',
  'càs',
  'càc',
  'cuillère',
  'cuillères',
  'pincée',
  'cucharada',
  'cucharadas',
  'cucharadita',
  'cucharaditas',
  'taza',
  'tazas',
  'pizca',
  'colher',
  'colheres',
  'chávena',
  'xícara',
  'xícaras',
  'pitada',
  'cucchiaio',
  'cucchiai',
  'cucchiaino',
  'cucchiaini',
  'pizzico',
  'eetlepel',
  'eetlepels',
  'theelepel',
  'theelepels',
  'snufje',
  'łyżka',
  'łyżki',
  'łyżeczka',
  'łyżeczki',
  'szklanka',
  'szklanki',
  'ss',
  'ts',
  'krm',
  'st',
  'stk',
  'stück',
  'zehe',
  'zehen',
  'clove',
  'cloves',
  'dientes',
  'diente',
];

const QUANTITY = String.raw`(?:\d+(?:[.,/]\d+)?(?:\s*[-–]\s*\d+(?:[.,/]\d+)?)?|[½¼¾⅓⅔⅛])`;
/** A quantity opening the line, not a list's numbering ("1. Preheat", "2) Mix"). */
const OPENING_QUANTITY = new RegExp(String.raw`^${QUANTITY}(?![.)]\s)`, 'u');
const WITH_UNIT = new RegExp(String.raw`(?:^|[\s(])${QUANTITY}\s*(?:${UNITS.join('|')})(?:\.|(?![\p{L}]))`, 'iu');
/** Japanese and Chinese amounts: spoons, a measured amount, "to taste", or a number and a counter. */
const CJK_AMOUNT = /大さじ|小さじ|適量|少々|少许|适量|[0-9０-９]+\s*(?:g|ml|cc|個|本|枚|片|克|毫升|勺|个|杯|カップ)/u;

/** Whether a line reads like an ingredient: an amount and a thing. */
export function readsLikeIngredient(text: string): boolean {
  return OPENING_QUANTITY.test(text) || WITH_UNIT.test(text) || CJK_AMOUNT.test(text);
}

/**
 * How records fit the prompt's nouns for its records (English nouns among `recordNouns`) by their text:
 * null unless the prompt asks for ingredients and most of at least MIN_RECORDS short records read like them.
 */
export function shapeFit(recordNouns: string[], members: Element[]): TopicFit | null {
  if (!recordNouns.includes('ingredient') || members.length < MIN_RECORDS) return null;
  const read = members.slice(0, MAX_READ).map(subtreeText);
  const average = read.reduce((n, t) => n + t.length, 0) / read.length;
  if (average > MAX_AVERAGE_LENGTH) return null;
  const shaped = read.filter(readsLikeIngredient).length;
  if (shaped / read.length < MIN_SHARE) return null;
  return {
    factor: SHAPED_FACTOR,
    recordWord: 'ingredient',
    reason: `${shaped} of ${read.length} records read like ingredients (an amount and a thing)`,
  };
}
