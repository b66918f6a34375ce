// Detail pages: finds, on a record's own page, the element holding a value the list page lacks
// (a description, a SKU...), by its class, id or itemprop first and by its content otherwise, and
// keeps a selector only when it finds a value on every detail page tried.
import type { CheerioAPI } from 'cheerio';
import type { AgentField } from '../../../engine/definition.js';
import { resolveUrl } from '../../../engine/extract.js';
import type { Candidate, CandidateField } from './candidate.js';
import { roleFields } from './field-roles.js';
import { countedThing, countersFirst, countShaped, isCountRequest } from './count-field.js';
import { aroundDate, DATE_RE2, showsDate } from './date-shape.js';
import { CONCEPT_WORDS, conceptOfValues, conceptOfWord, tokenWords, type Concept } from './naming.js';
import { linkNamingField, linkRunNamingField } from './field-links.js';
import { asksForSeveral } from './subject.js';
import { dateAfterHeading, datedOwnText, nameBeforeDate } from './dateline.js';
import { iconLabelled } from './icon-label.js';
import { innerFirst } from './inner-first.js';
import { scoreAfterHeading } from './lone-score.js';
import { cssString, isElement, NAMING_ATTRIBUTES, stableClasses, type Element } from './selectors.js';
import { normalizeText, ownText } from './dom-text.js';
import { firstMatchSelector } from './page-record.js';
import { hasLegalForm } from './shape-fields.js';
import { FOOTNOTES, inlineLabel, isOwnWord, labelledParent, ownWordLabel, requestWords } from './own-word-label.js';
import { describedUnderHeadline, namesSubheading, subheadingAfterHeadline } from './subheading.js';
import { BYLINE_BY, BYLINE_VERB, BYLINE_WORD, bylineName } from './byline.js';
import { sectionBeforeHeadline } from './section-kicker.js';
import { isAccountAction, SECTION_MAX_LENGTH, shortLinksOnly } from './page-filing.js';
import { escapeRegex } from './regex-text.js';

export interface BuilderPage {
  $: CheerioAPI;
  /** The URL that answered (relative links resolve against it). */
  url: string;
}

/** Fetches and parses a detail page; null when it cannot be read. */
export type FetchPage = (url: string) => Promise<BuilderPage | null>;

const DETAIL_PAGES_TRIED = 2;
/** Concepts whose values have a shape of their own: an element named for one must show that shape. */
const SHAPED = new Set<Concept>(['date']);
/** The word opening a byline, before the author's name, in the prompts' languages. */
const BYLINE_OPENING = new RegExp(`^\\s*(?:${BYLINE_VERB}\\s+)?${BYLINE_BY}(?:\\s+\\S|\\s*$)`, 'i');
function mainLink(candidate: Candidate): CandidateField | undefined {
  const roles = roleFields(candidate);
  return candidate.fields.find((f) => f.kind === 'link' && roles.get(f) === 'link');
}

export async function detailPages(
  page: BuilderPage,
  candidate: Candidate,
  fetchPage: FetchPage,
): Promise<{ pages: CheerioAPI[]; selector: string } | null> {
  const link = mainLink(candidate);
  if (!link) return null;
  const selector = link.selector ?? 'a[href]';
  const urls = page
    .$(candidate.selector)
    .toArray()
    .slice(0, DETAIL_PAGES_TRIED)
    .map((el) => {
      const scope = page.$(el);
      const a = link.selector ? scope.find(link.selector).first() : scope;
      const href = a.attr('href');
      return href === undefined ? null : resolveUrl(href, page.url);
    })
    .filter((u): u is string => u !== null);
  const pages: CheerioAPI[] = [];
  for (const url of urls) {
    const p = await fetchPage(url);
    if (p) pages.push(p.$);
  }
  return pages.length > 0 ? { pages, selector } : null;
}

export interface DetailRequest {
  /** The field name to give it. */
  name: string;
  concept: Concept | undefined;
  /** The word the user used. */
  word: string;
  /** The field's name as the prompt writes it, when that differs ("categorias" for "categoria"). */
  written?: string;
}

/** A request asks for several values: tags, or a concept's word in the plural as the prompt writes it. */
const asksForMany = (request: DetailRequest) => asksForSeveral(request.written ?? request.name);

function selectorsFor($: CheerioAPI, request: DetailRequest): string[] {
  const words = new Set([...requestWords(request), ...(isCountRequest(request) ? [countedThing(request)] : [])]);
  const out: string[] = [];
  $('body *').each((_, node) => {
    const el = node;
    if (['script', 'style', 'nav', 'header', 'footer'].includes(el.name) || inPageChrome($, el)) return;
    // An element whose text opens with the field's own word and a colon holds its label and its value
    // ("著者：後藤大地", "Autor: Max Muster").
    if (!el.children.some(isElement) && inlineLabel(normalizeText($(el).text()), words)) {
      const selector = firstMatchSelector($, el);
      if (selector) out.push(selector);
      return;
    }
    // An element holding the field's own word alone is its label ("votes" under "13"): the value is in
    // its parent when that holds a short text with more ("13 votes").
    if (!el.children.some(isElement) && isOwnWord(words, normalizeText($(el).text()))) {
      const selector = labelledParent($, el);
      if (selector) out.push(selector);
      return;
    }
    // A link is named by an attribute for what it holds (`a[data-test="jd-info-location"]`), not by its class.
    for (const a of NAMING_ATTRIBUTES) {
      const v = el.attribs[a];
      if (
        v &&
        tokenWords(v).some(
          (w) => words.has(w) || (conceptOfWord(w) !== undefined && conceptOfWord(w) === request.concept),
        )
      )
        out.push(`[${a}=${cssString(v)}]`);
    }
    // A link's class names where it leads ("reviews-link"), except when its last word names the
    // request: `a.primary_artist` holds the artist.
    if (el.name === 'a') {
      for (const c of stableClasses(el)) if (words.has(tokenWords(c).at(-1) ?? '')) out.push(`a.${c}`);
      return;
    }
    const id = el.attribs.id;
    if (id && /^[A-Za-z][\w-]*$/.test(id) && tokenWords(id).some((w) => words.has(w))) out.push(`#${id}`);
    for (const c of stableClasses(el)) if (tokenWords(c).some((w) => words.has(w))) out.push(`${el.name}.${c}`);
  });
  if (request.concept === 'title') out.push('h1');
  // A count of things: an element classed as a count of them ("rating-count") before one classed as the things.
  if (isCountRequest(request)) return countersFirst(out);
  // No class names the line under the headline: the first sentence after it.
  if (namesSubheading(request.word)) {
    // The page's own description shown under the headline comes before any class naming a subtitle.
    const described = describedUnderHeadline($);
    if (described) out.unshift(described);
    const selector = subheadingAfterHeadline($);
    if (selector) out.push(selector);
  }
  // No class names the date: the first text after the page's heading showing one, in a byline or with
  // its topic ("By Ann Lee - Jan 9, 2017 at 10:05AM", "11.03.17 in Gadgets"); else the first element
  // of the page's content showing only a date (one far from the heading may date something else).
  if (request.concept === 'date') {
    const dated = dateAfterHeading($);
    const near = (dated && firstMatchSelector($, dated)) ?? undefined;
    // A class naming a date that many elements carry dates a list beside the page (related stories), and
    // one inside a link dates the story the link leads to: the date after the heading comes before them.
    const listed = out.findIndex((s) => matchCount($, s) >= LISTED_DATES || inLink($, s));
    if (near && listed >= 0) out.splice(listed, 0, near);
    else if (near) out.push(near);
    const selector = firstContentLeaf($, (text) => conceptOfValues([text]) === 'date', ['script', 'style', 'option']);
    if (selector) out.push(selector);
  }
  // The section named above the headline ("Fashion", a breadcrumb's last step) comes before any class
  // naming a category: many elements carrying one are the categories of a list beside the article, and
  // one alone may file the page again at its foot, with more words.
  // Categories asked for in the plural are the links filing the page, not the one section above it.
  if (request.concept === 'category') {
    const section = sectionBeforeHeadline($);
    if (section && asksForMany(request)) out.push(section);
    else if (section) out.unshift(section);
  }
  // No class names the employer: the first value of the page's content closing with a legal form.
  if (request.concept === 'company') {
    const selector = firstContentLeaf($, hasLegalForm);
    if (selector) out.push(selector);
  }
  // No class names the author: the first byline of the page's content ("By <a>Jose de la Cruz</a>").
  // The byline after the headline is the article's own; one before it signs a story of the site's header.
  if (request.concept === 'author') {
    // A header holding the <h1> is the article's own, whether or not an <article> wraps it.
    const all = $('body *').toArray();
    const heading = all.findIndex((el) => el.name === 'h1' && $(el).closest('nav, footer').length === 0);
    const ownHeader = heading >= 0 ? $(all[heading]).closest('header')[0] : undefined;
    const bylines = all.filter((el) => {
      const first = el.children[0] as { type: string; data?: string } | undefined;
      return (
        first?.type === 'text' &&
        BYLINE_OPENING.test(first.data ?? '') &&
        normalizeText($(el).text()).length < 80 &&
        (!inPageChrome($, el) || (ownHeader !== undefined && $(el).closest('header')[0] === ownHeader))
      );
    });
    // A byline's word alone with no name after or around it is no byline (a link "AV", Swedish "by").
    const named = bylines.filter((el) => !BYLINE_WORD.test(normalizeText($(el).text())) || bylineName($, el) !== el);
    const byline = named.find((el) => all.indexOf(el) > heading) ?? named[0];
    // A byline whose "By" stands in an element of its own names the author in the element after it.
    const selector = byline && firstMatchSelector($, bylineName($, byline));
    if (selector) out.push(selector);
  }
  // An icon whose text alternative is the field's word labels the text beside it.
  const icon = iconLabelled($, words);
  if (icon) out.push(icon);
  // No class names it: a link whose address names the field ("/author/…", "/artists/…", "/tag/…"), after
  // the byline and the classes; tags the page files under no tag are its categories.
  if (request.concept === undefined || LINKED.has(request.concept)) {
    const selector = asksForMany(request)
      ? (linkRunNamingField($, words) ??
        (request.concept === 'tags' ? linkRunNamingField($, new Set(CONCEPT_WORDS.category)) : undefined))
      : linkNamingField($, words, request.concept === 'author');
    if (selector) out.push(selector);
  }
  // No class names the score of a review: the first number after the headline shaped as one ("6.2").
  if (request.concept === 'rating') {
    const selector = scoreAfterHeading($);
    if (selector) out.push(selector);
  }
  // Last, the name standing right before the date under the headline.
  if (request.concept === 'author') {
    const name = nameBeforeDate($);
    const selector = name && firstMatchSelector($, name);
    if (selector) out.push(selector);
  }
  if (request.concept === 'description') {
    // The sentence under the headline (a standfirst) sums the page up as shown; the meta tag after it.
    const under = subheadingAfterHeadline($);
    if (under) out.push(under);
    out.push('meta[name="description"]');
    // The longest paragraph of the main content.
    const paragraphs = $('main p, article p, body p').toArray<Element>();
    paragraphs.sort((a, b) => normalizeText($(b).text()).length - normalizeText($(a).text()).length);
    const longest = paragraphs[0];
    if (longest) {
      const cls = stableClasses(longest);
      if (cls.length > 0) out.push(`p.${cls[0]}`);
      out.push('main p', 'article p');
    }
  }
  // A word naming no concept is found by classes alone: an element inside another named so is the value.
  return request.concept === undefined ? innerFirst($, [...new Set(out)]) : [...new Set(out)];
}

/** Concepts whose values sites give pages of their own, linked from the page's header. */
const LINKED = new Set<Concept>(['author', 'tags', 'category', 'company', 'brand', 'publisher']);

/** Elements of one selector that date (or file) a list of things rather than the page. */
const LISTED_DATES = 3;

/** Inside a figure or an element classed as a caption. */
function inCaption(el: ReturnType<CheerioAPI>): boolean {
  return el.closest('figure, figcaption, [class*="caption" i], [class*="Caption"]').length > 0;
}

/** Whether the selector's first element sits inside a link. */
function inLink($: CheerioAPI, selector: string): boolean {
  try {
    // A link marked as the page's own ("active", aria-current: a permalink beside the headline) leads nowhere else.
    return $(selector).first().closest('a').not('.active, [aria-current]').length > 0;
  } catch {
    return false;
  }
}

function matchCount($: CheerioAPI, selector: string): number {
  try {
    return $(selector).length;
  } catch {
    return 0;
  }
}

/** Classes of text only screen readers read ("sr-only", "visually-hidden", "accessibility-hidden"). */
const READER_ONLY =
  /(?:^|[-_\s])(?:sr-only|screen-reader|visually-hidden|visuallyhidden|accessibility-hidden|a11y-hidden|assistive)/i;

/**
 * The label a box's value opens with when only screen readers see it (`<span class="sr-only">Salary</span>
 * 50 000 Kč`): the value is the rest.
 */
function hiddenLabel($: CheerioAPI, selector: string): string | undefined {
  const first = $(selector)
    .first()
    .find('[class]')
    .toArray()
    .find((e) => READER_ONLY.test(e.attribs.class ?? ''));
  if (!first) return undefined;
  const label = normalizeText($(first).text());
  const text = normalizeText($(selector).first().text());
  return label !== '' && text.startsWith(label) && text.length > label.length ? label : undefined;
}

/** The word a byline opens with when an element of its own holds it (`<a><span>By</span>Ann Lee</a>`). */
function bylineWord($: CheerioAPI, selector: string): string | undefined {
  const box = $(selector).first();
  const first = box.children().first();
  const word = normalizeText(first.text());
  const text = normalizeText(box.text());
  return first.length > 0 && BYLINE_WORD.test(word) && text.startsWith(word) && text.length > word.length
    ? word
    : undefined;
}

/**
 * An author's box that also shows a date ("Céline Mazur 14/05/25"), an email address or any other number
 * (a count of comments: "by Lucas Nolan 22 Dec 2016 651"): the element inside it holding the name alone
 * (not its "By"), if the page gives it one. Names hold no digits.
 */
function nameWithoutDate($: CheerioAPI, selector: string): string | undefined {
  const box = $(selector).first();
  const text = normalizeText(box.text());
  const dated =
    /\d/.test(text) || showsDate(text) || conceptOfValues([text.split(' ').pop() ?? '']) === 'date' || EMAIL.test(text);
  if (!dated) return undefined;
  const inner = box
    .find('*')
    .toArray()
    .find((e) => {
      const t = normalizeText($(e).text());
      return (
        t !== '' &&
        t.length < text.length &&
        !/\d/.test(t) &&
        !EMAIL.test(t) &&
        !BYLINE_WORD.test(t) &&
        !e.children.some(isElement)
      );
    });
  return (inner && firstMatchSelector($, inner)) ?? undefined;
}

/** An email address in a text. */
const EMAIL = /[\w.+-]+@[\w-]+\.[\w.]+/;

/** An author's box is a byline, a name and a date: longer text is a container of more (an article, a bio). */
const AUTHOR_BOX_MAX_LENGTH = 120;

/**
 * A selector for the first element of the page's content (not its header, nav or footer, not an aside) that
 * holds no element, is none of `skipTags`, and whose text passes `test`; or undefined.
 */
function firstContentLeaf(
  $: CheerioAPI,
  test: (text: string) => boolean,
  skipTags: readonly string[] = [],
): string | undefined {
  const found = $('body *')
    .toArray()
    .find(
      (el) =>
        !skipTags.includes(el.name) &&
        !el.children.some(isElement) &&
        test(normalizeText($(el).text())) &&
        !inPageChrome($, el) &&
        $(el).closest('aside').length === 0,
    );
  return (found && firstMatchSelector($, found)) ?? undefined;
}

/**
 * Inside the page's navigation, footer or own header (an article's header is content, and so is a header
 * holding the page's headline, whatever wraps it).
 */
function inPageChrome($: CheerioAPI, el: Element): boolean {
  return (
    $(el).closest('nav, footer').length > 0 ||
    $(el)
      .closest('header')
      .not('article header, main header')
      .filter((_, h) => $(h).find('h1').length === 0).length > 0
  );
}

/** A field for each request that every given detail page has a value for; the rest are left out. */
export function inferDetailFields(
  pages: CheerioAPI[],
  requests: DetailRequest[],
): { fields: AgentField[]; missing: DetailRequest[] } {
  const fields: AgentField[] = [];
  const missing: DetailRequest[] = [];
  if (pages.length === 0) return { fields, missing: requests };
  for (const request of requests) {
    let chosen: AgentField | null = null;
    for (const selector of selectorsFor(pages[0], request)) {
      const attribute = selector.startsWith('meta') ? 'content' : undefined;
      const ok = pages.every(($) => {
        try {
          const el = $(selector).first();
          const value = normalizeText((attribute ? el.attr(attribute) : el.text()) ?? '');
          // A class naming a date ("...HedTag", German for day) must hold one, as all its text or in its own.
          if (request.concept === 'date' && !attribute)
            return conceptOfValues([value]) === 'date' || (el[0] !== undefined && datedOwnText(el[0] as Element));
          // A count of things ("number of ratings") is a number, not the box around it ("4.8 (489) 330 Reviews").
          if (isCountRequest(request) && !attribute) return countShaped(value);
          if (request.concept && SHAPED.has(request.concept) && !attribute)
            return conceptOfValues([value]) === request.concept;
          // A box whose class names the author but that holds the whole article ("article-author-ruler")
          // is a layout's, not the author's: an author's box is a byline, a name and a date at most.
          if (request.concept === 'author' && !attribute && value.length > AUTHOR_BOX_MAX_LENGTH) return false;
          // A box classed for the user that says "Sign In" is the site's account menu, not who wrote the page.
          if (request.concept === 'author' && !attribute && isAccountAction(value)) return false;
          // A box holding the page's headline is the article itself, not its summary (a wrapper classed
          // "content" or "body" around the headline, the standfirst and the text).
          // A caption describes a picture, not the page.
          if (request.concept === 'description' && !attribute && (el.find('h1').length > 0 || inCaption(el)))
            return false;
          // A category is a name of a few words: a box of more text is a menu or a list of them.
          // Categories asked for in the plural may be a run of links filing the page ("<a>x</a>, <a>y</a>").
          if (
            request.concept === 'category' &&
            !attribute &&
            value.length > SECTION_MAX_LENGTH &&
            !(asksForMany(request) && shortLinksOnly(el))
          )
            return false;
          // A label ("Tags :") names the value; it is not the value.
          return value !== '' && !/[:：]$/.test(value);
        } catch {
          return false;
        }
      });
      if (ok) {
        // A date inside other words ("By Ann Lee - Jan 9, 2017", "11.03.17 in Gadgets"): the date alone.
        const around = aroundDate(normalizeText(pages[0](selector).first().text()));
        const inWords =
          request.concept === 'date' &&
          !attribute &&
          around !== undefined &&
          (around.before + around.after).trim() !== '';
        if (inWords) {
          // The box's own text, unless the date stands in an element inside it ("<b>Posted</b> <time>…</time>").
          const own = showsDate(ownText(pages[0](selector).first()[0] as Element));
          chosen = {
            name: request.name,
            selector,
            ...(own ? { attribute: 'ownText' } : {}),
            transform: [{ regex: `(${DATE_RE2})`, group: 1, flags: 'i' }],
          };
          break;
        }
        const label = attribute
          ? undefined
          : (hiddenLabel(pages[0], selector) ??
            ownWordLabel(pages[0], selector, requestWords(request)) ??
            inlineLabel(normalizeText(pages[0](selector).first().text()), requestWords(request)) ??
            (request.concept === 'author' ? bylineWord(pages[0], selector) : undefined));
        const footnoted = !attribute && FOOTNOTES.test(normalizeText(pages[0](selector).first().text()));
        const own = request.concept === 'author' && !attribute ? nameWithoutDate(pages[0], selector) : undefined;
        chosen = {
          name: request.name,
          selector: own ?? selector,
          ...(attribute ? { attribute } : {}),
          transform:
            label || footnoted
              ? [
                  'trim',
                  ...(label ? [{ replace: `^\\s*${escapeRegex(label)}\\s*`, with: '' }] : []),
                  ...(footnoted ? [{ replace: FOOTNOTES.source, with: '' }] : []),
                ]
              : request.concept === 'price' || isCountRequest(request)
                ? 'number'
                : 'trim',
        };
        break;
      }
    }
    if (chosen) fields.push(chosen);
    else missing.push(request);
  }
  return { fields, missing };
}
