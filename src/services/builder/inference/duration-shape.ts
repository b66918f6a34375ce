// A duration written as numbers and units of time in the prompts' languages ("15 Minuten", "20-30 min.",
// "1h15", "2 uur 30 min", "1 h 40 mn", "45 mins", "30分"): the value of a recipe's or an episode's time
// when no label names it. A clock time ("03:25") is no duration by this shape.
import type { CheerioAPI } from 'cheerio';
import { ownText } from './dom-text.js';
import type { Element } from './selectors.js';
import { mainHeading } from './subject.js';

const UNIT =
  '(?:min(?:s|ute[ns]?|utos?|uti)?|mn|h|hrs?|hours?|std|stunden?|uur|heures?|horas?|ore|時間|分|小时|小時|分钟|分鐘)';
/** Numbers with their units of time, nothing else: "15 Minuten", "20-30 min.", "1h15", "2 uur 30 min". */
export const DURATION = new RegExp(
  `^(?:ca\\.?\\s*)?\\d+(?:[.,]\\d+)?(?:\\s*[-–]\\s*\\d+)?\\s*${UNIT}\\.?(?:\\s*\\d+\\s*(?:${UNIT}\\.?)?)?$`,
  'i',
);

/**
 * The first element showing a duration alone, after the page's main heading (or its first <h1>): the
 * record's own time comes after its title, teasers of other pages before it are passed.
 */
export function durationAfterHeading($: CheerioAPI): Element | undefined {
  const all = $<Element, string>('body *').toArray();
  const heading = mainHeading($) ?? $<Element, string>('body h1').toArray()[0];
  const from = heading ? all.indexOf(heading) + 1 : 0;
  return all.slice(from).find((el) => !['script', 'style'].includes(el.name) && DURATION.test(ownText(el)));
}
