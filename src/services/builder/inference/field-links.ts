// Links whose address names what their text is: sites give each author, artist, tag and category a page of
// its own, and a link to it says so in its path, its query or its fragment ("/author/pete-evans",
// "/latest?author=joewee", "/artists/prince", "/tag/toy/", "#content__author"), whatever the page's class
// names are. On a page about one thing, the first such link after its headline holds the field's value;
// a field of several values (tags) is the run of such links beside each other.
import type { CheerioAPI } from 'cheerio';
import { normalizeText } from './dom-text.js';
import { firstMatchSelector } from './page-record.js';
import { isProfileLink } from './profile-link.js';
import { isElement, type Element } from './selectors.js';
import { inBreadcrumbs, mainHeading } from './subject.js';
import { singular } from './naming.js';
import { normalizeWord } from './word-tokens.js';

/** A value in a link is a name of a few words: longer text is a teaser or a sentence. */
const NAME_MAX_LENGTH = 60;

/** The words of a link's address: its path, its query's keys and its fragment ("/a/b?c=1#d-e" -> a b c d e). */
export function addressWords(href: string): string[] {
  let url: URL;
  try {
    url = new URL(href, 'http://page.invalid/');
  } catch {
    return [];
  }
  return `${url.pathname} ${[...url.searchParams.keys()].join(' ')} ${url.hash}`
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/[^\p{L}]+/u)
    .filter((w) => w.length > 1)
    .map(normalizeWord);
}

/** Whether the address names one of the words (or a plural of one: "/artists/" for "artist"). */
function addressNames(href: string, words: Set<string>): boolean {
  return addressWords(href).some((w) => words.has(w) || words.has(singular(w)));
}

/** Links of the page's content (not its navigation, footer, side column or breadcrumbs) after its headline. */
function linksAfterHeading($: CheerioAPI): Element[] {
  const all = $('body a[href]').toArray();
  const heading = mainHeading($);
  const start = heading ? all.findIndex((a) => isAfter(a, heading)) : 0;
  if (start < 0) return [];
  return all.slice(start).filter((a) => $(a).closest('nav, footer, aside').length === 0 && !inBreadcrumbs($, a));
}

/** Whether `a` comes after `heading` in the document (and is not inside it). */
function isAfter(a: Element, heading: Element): boolean {
  const path = (el: Element) => {
    const steps: number[] = [];
    for (let e: Element | null = el; e && isElement(e.parent); e = e.parent)
      steps.unshift(e.parent.children.indexOf(e));
    return steps;
  };
  const pa = path(a);
  const ph = path(heading);
  for (let i = 0; i < Math.min(pa.length, ph.length); i++) if (pa[i] !== ph[i]) return pa[i] > ph[i];
  return false;
}

const shortText = ($: CheerioAPI, a: Element) => {
  const text = normalizeText($(a).text());
  return text !== '' && text.length <= NAME_MAX_LENGTH;
};

/**
 * A selector for the first link after the headline whose address names the field (`words`), or, for an
 * author, leads to a person's page ("/profile/ada", "/User/TravisHaney/").
 */
export function linkNamingField($: CheerioAPI, words: Set<string>, person: boolean): string | undefined {
  const found = linksAfterHeading($).find(
    (a) =>
      shortText($, a) &&
      (addressNames(a.attribs.href, words) || (person && isProfileLink(a.attribs.href, normalizeText($(a).text())))),
  );
  return (found && firstMatchSelector($, found)) ?? undefined;
}

/**
 * A selector for the run of links holding a field of several values: the first link after the headline
 * whose address names the field, with the links beside it (each alone or in a wrapper of its own, as
 * `li > a`). Every link of the run is a value: a post's tags and its categories stand in one row.
 */
export function linkRunNamingField($: CheerioAPI, words: Set<string>): string | undefined {
  const first = linksAfterHeading($).find((a) => shortText($, a) && addressNames(a.attribs.href, words));
  if (!first) return undefined;
  // The link's item: the link, or the wrapper holding nothing but it (`<li><a>`, `<span><a>`).
  let item = first;
  const onlyChild = (el: Element) =>
    isElement(el.parent) &&
    el.parent.children.filter(isElement).length === 1 &&
    normalizeText($(el.parent).text()) === normalizeText($(el).text());
  while (onlyChild(item) && isElement(item.parent) && item.parent.name !== 'body') item = item.parent;
  const container = item.parent;
  if (!isElement(container)) return undefined;
  const at = firstMatchSelector($, container);
  if (!at) return undefined;
  const selector = item === first ? `${at} > ${first.name}` : `${at} > ${item.name} ${first.name}`;
  try {
    const matches = $(selector).toArray();
    return matches.length >= 2 && matches[0] === first ? selector : undefined;
  } catch {
    return undefined;
  }
}
