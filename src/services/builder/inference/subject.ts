// A page about one thing (an article, a job ad) read as that thing: repeated records beside its subject
// (a ranking, "more stories" in a side column) are not what a prompt asking for no list wants, and a
// field of several values on it (its tags, its authors) is read as all of them.
import type { CheerioAPI } from 'cheerio';
import type { AgentField } from '../../../engine/definition.js';
import type { Candidate } from './candidate.js';
import { CONCEPT_WORDS, conceptOfWord } from './naming.js';
import { isElement, type Element } from './selectors.js';

/** Breadcrumbs name the page's place in the site: their headings and names are not its title. */
const BREADCRUMBS = 'nav, [itemtype*="BreadcrumbList"], .breadcrumb, .breadcrumbs, [class*="breadcrumb"]';

export const inBreadcrumbs = ($: CheerioAPI, el: Element) => $(el).closest(BREADCRUMBS).length > 0;

/**
 * The page's main heading: its one h1 outside breadcrumbs, else the heading opening its article (a
 * page whose h1 is the last breadcrumb, with the headline in the article's header as an h2).
 */
export function mainHeading($: CheerioAPI): Element | undefined {
  const h1 = $<Element, string>('body h1')
    .toArray()
    .filter((e) => $(e).text().trim().length > 3 && !inBreadcrumbs($, e));
  if (h1.length === 1) return h1[0];
  if (h1.length > 1) return undefined;
  const opening = $<Element, string>('article header h2, article h2')
    .toArray()
    .find((e) => $(e).text().trim().length > 3 && !inBreadcrumbs($, e));
  return opening;
}

/** The shortest heading text that opens a longer title: two words or more. */
const OPENING_MIN_LENGTH = 10;

/**
 * A heading whose text opens a title the page's metadata gives with more after it ("Tepsis krumpli" of
 * "Tepsis krumpli Recept képpel - Mindmegette.hu"): the metadata adds the site's name or a tagline, the
 * heading shows the title. The first such h1, else h2 or h3.
 */
export function headingOpening($: CheerioAPI, title: string): Element | undefined {
  for (const level of ['h1', 'h2', 'h3']) {
    const found = $<Element, string>(`body ${level}`)
      .toArray()
      .find((e) => {
        const text = $(e).text().replace(/\s+/g, ' ').trim();
        return (
          text.length >= OPENING_MIN_LENGTH &&
          /\s/.test(text) &&
          title.startsWith(text) &&
          /^[\s\p{P}|]/u.test(title.slice(text.length)) &&
          !inBreadcrumbs($, e)
        );
      });
    if (found) return found;
  }
  return undefined;
}

/**
 * The page's one main heading sits in an article (or the main content) that holds none of the records:
 * the records are beside the page's subject, not its parts.
 */
export function besideTheSubject($: CheerioAPI, top: Candidate): boolean {
  const heading = mainHeading($);
  if (!heading) return false;
  const container = $(heading).closest('article, main, [role="main"]')[0] as Element | undefined;
  if (!container) return false;
  const records = $(top.selector).toArray() as Element[];
  if (records.length === 0) return false;
  const inside = (el: Element) => {
    for (let p: Element | null = el; p; p = isElement(p.parent) ? p.parent : null) if (p === container) return true;
    return false;
  };
  return !records.some(inside);
}

/** A field's name asks for several values: a plural of a concept's word, or tags ("tags", "authors", "标签"). */
export function asksForSeveral(name: string): boolean {
  const plural = /^[a-z]{4,}s$/.test(name) && conceptOfWord(name.slice(0, -1)) !== undefined;
  return plural || conceptOfWord(name) === 'tags' || CONCEPT_WORDS.tags.includes(name);
}

/**
 * A field asked for in the plural or naming tags ("tags", "authors", "标签") whose element has siblings
 * like it (`li.tag` beside `li.tag`): every value, not the first.
 */
export function withMultipleValues(
  $: CheerioAPI,
  fields: AgentField[],
  several: (name: string) => boolean = asksForSeveral,
): AgentField[] {
  return fields.map((field) => {
    if (field.attribute === 'content' || !several(field.name)) return field;
    let matches: Element[];
    try {
      matches = $(field.selector as string).toArray() as Element[];
    } catch {
      return field;
    }
    const first = matches[0];
    if (!first) return field;
    // One element holding the values as links or items ("TAG: <a>x</a>, <a>y</a>"), or as chips each
    // wrapping one link (`<span class="tag"><a>x</a></span>`): its children.
    const wrapsLink = (c: Element) => {
      const inner = (c.children ?? []).filter(isElement);
      return inner.length === 1 && inner[0].name === 'a' && $(inner[0]).text().trim() === $(c).text().trim();
    };
    const parts = (first.children ?? []).filter(
      (c): c is Element =>
        isElement(c) && (c.name === 'a' || c.name === 'li' || wrapsLink(c)) && $(c).text().trim() !== '',
    );
    if (matches.length === 1 && parts.length >= 2 && parts.every((c) => c.name === parts[0].name))
      return {
        ...field,
        selector: `${field.selector as string} > ${parts[0].name}`,
        multiple: true,
        transform: 'trim',
      };
    // A box whose text is all in its links, however deep (`<div class="tags-list"><div><a>#x</a><a>#y</a>`):
    // each link is a value.
    const links = $(first)
      .find('a')
      .toArray()
      .filter((a) => $(a).text().trim() !== '');
    const bare = (t: string) => t.replace(/[\s,;|·/]+/g, '');
    if (
      matches.length === 1 &&
      links.length >= 2 &&
      bare(links.map((a) => $(a).text()).join('')) === bare($(first).text())
    )
      return { ...field, selector: `${field.selector as string} a`, multiple: true, transform: 'trim' };
    // Siblings, or each in a wrapper of its own (`li > a`).
    const alike = (m: Element) => m.parent === first.parent || m.parent?.parent === first.parent?.parent;
    if (matches.filter(alike).length < 2) return field;
    return { ...field, multiple: true };
  });
}
