// The section an article is filed under, as pages show it: a short link just above the headline (a
// "kicker": "Fashion", "American Opportunity") or the last step of the breadcrumb trail before it
// ("Accueil › Justice et faits divers"). Pages rarely class it for what it is, and the classes that do
// name a category often belong to a list of other stories beside the article.
import type { CheerioAPI } from 'cheerio';
import { showsDate } from './date-shape.js';
import { normalizeText } from './dom-text.js';
import { SECTION_MAX_LENGTH } from './page-filing.js';
import { firstMatchSelector } from './page-record.js';
import { isElement, type Element } from './selectors.js';
import { mainHeading } from './subject.js';

/** How many texts before the headline are read for it: further up are the site's menus. */
const TEXTS_READ = 6;
/** A section's name is a few words; longer texts are teasers and sentences. */
const MAX_WORDS = 7;
/** A navigation block with more links than this is a menu of the site, not a breadcrumb trail. */
const TRAIL_MAX_LINKS = 6;

const SKIPPED = new Set(['script', 'style', 'noscript', 'option', 'svg', 'button', 'title']);

/** The headline: the page's one main heading, else its first <h1> outside navigation and footers. */
function headline($: CheerioAPI): Element | undefined {
  return (
    mainHeading($) ??
    $<Element, string>('body h1')
      .toArray()
      .find((el) => $(el).closest('nav, footer').length === 0)
  );
}

/**
 * A link to a page of the site (a step of a short navigation trail, or in the header holding the headline),
 * not an item of the site's menu, a link home or a button's script.
 */
function namesASection($: CheerioAPI, el: Element, heading: Element): boolean {
  const link = $(el).closest('a');
  if (link.length === 0) return false;
  const href = (link.attr('href') ?? '').trim();
  if (/^(?:#|javascript:|$)/i.test(href) || /^(?:(?:https?:)?\/\/[^/]+)?\/?$/.test(href)) return false;
  const menu = (box: ReturnType<CheerioAPI>) => box.length > 0 && box.find('a').length > TRAIL_MAX_LINKS;
  const header = $(el).closest('header');
  return !menu($(el).closest('nav')) && (header.find(heading).length > 0 || !menu(header));
}

/** A selector for the section named just above the page's headline, if it names one. */
export function sectionBeforeHeadline($: CheerioAPI): string | undefined {
  const heading = headline($);
  if (!heading) return undefined;
  const title = normalizeText($(heading).text());
  const all = $('body *').toArray();
  const texts = all
    .slice(0, all.indexOf(heading))
    .filter((el) => !SKIPPED.has(el.name) && !el.children.some(isElement) && normalizeText($(el).text()) !== '')
    .slice(-TEXTS_READ)
    .reverse();
  const found = texts.find((el) => {
    const text = normalizeText($(el).text());
    if (text === title || text.length > SECTION_MAX_LENGTH || text.split(' ').length > MAX_WORDS) return false;
    if (showsDate(text) || /[:：]$/.test(text) || !/\p{L}/u.test(text)) return false;
    return namesASection($, el, heading);
  });
  return (found && firstMatchSelector($, found)) ?? undefined;
}
