// A page that is one record (an article, a product's own page): its fields are read from the document
// root. What the page says about itself (JSON-LD, Open Graph and other meta tags, microdata) tells
// which visible element holds each value; the meta tag itself is used when no element shows it.
import type { CheerioAPI } from 'cheerio';
import type { AgentField } from '../../../engine/definition.js';
import { normalizeText, ownText } from './dom-text.js';
import { durationAfterHeading } from './duration-shape.js';
import { CONCEPT_WORDS, conceptOfWord, fieldName, type Concept } from './naming.js';
import { type PromptRequest } from './prompt-requests.js';
import { currencyField } from './currency-field.js';
import { asksForFormer, struckPrice } from './former-price.js';
import { countedThing, countInText, isCountRequest } from './count-field.js';
import { labelledValue } from './labelled-value.js';
import { cssString, isElement, stableClasses, type Element } from './selectors.js';
import { documentTitleField } from './document-title.js';
import { asksForSeveral, headingOpening, inBreadcrumbs, mainHeading } from './subject.js';
import { normalizeWord } from './word-tokens.js';
import { pushTo } from './multimap.js';
import { textLineField } from './text-line-value.js';
import { escapeRegex, SPACE } from './regex-text.js';
import { inSiteBox } from './page-filing.js';

/** A value's text without the separator after its label (": OLB" -> "OLB"). */
const AFTER_SEPARATOR: AgentField['transform'] = [{ regex: '^[\\s:\\-–—|·]*(.+?)\\s*$', group: 1 }];
/**
 * Concepts a page shows without a label of their words in other languages: the title is its heading, the
 * author and the date stand in its byline, and their many words name other things on a page ("Temas
 * relacionados", German "Tag" for a day over the tags, "User reviews").
 */
const UNLABELLED = new Set<Concept>(['title', 'author', 'date', 'description', 'link', 'image']);

/** The list selector of a draft that reads the page as one record. */
export const ONE_RECORD_SELECTOR = 'html';

/** schema.org / Open Graph types of a page that is itself the record. */
const ITEM_TYPES =
  /^(?:article|newsarticle|blogposting|reportagenewsarticle|opinionnewsarticle|analysisnewsarticle|techarticle|scholarlyarticle|product|event|musicevent|jobposting|recipe|book|movie|course|localbusiness|restaurant|hotel|realestatelisting|video\.movie|product\.item)$/i;

interface Hint {
  value: string;
  /** Where a meta tag or microdata attribute holds it, for when no visible element shows it. */
  meta?: { selector: string; attribute: string };
}

/** JSON-LD keys and meta tags that hold each concept of the page's main item, best first. */
const JSON_KEYS: Partial<Record<Concept, string[]>> = {
  title: ['headline', 'name'],
  author: ['author', 'creator'],
  date: ['datePublished', 'startDate', 'dateCreated', 'uploadDate'],
  price: ['offers.lowPrice', 'offers.price', 'price'],
  description: ['description'],
  image: ['image'],
  brand: ['brand'],
  rating: ['aggregateRating.ratingValue'],
  reviews: ['aggregateRating.reviewCount', 'aggregateRating.ratingCount'],
  company: ['hiringOrganization', 'publisher'],
  location: ['location', 'jobLocation', 'address'],
  sku: ['sku', 'gtin13', 'mpn'],
  gtin: ['gtin13', 'gtin', 'gtin12', 'gtin14', 'gtin8', 'offers.gtin13', 'offers.gtin'],
};
const META_NAMES: Partial<Record<Concept, string[]>> = {
  title: ['og:title', 'twitter:title'],
  author: ['author', 'article:author', 'og:article:author', 'dc.creator', 'citation_author', 'parsely-author'],
  date: ['article:published_time', 'og:article:published_time', 'date', 'dc.date', 'pubdate'],
  price: ['product:price:amount', 'og:price:amount'],
  description: ['og:description', 'description', 'twitter:description'],
  image: ['og:image'],
};
const ITEMPROPS: Partial<Record<Concept, string[]>> = {
  title: ['headline', 'name'],
  author: ['author'],
  date: ['datePublished', 'startDate'],
  price: ['lowPrice', 'price'],
  description: ['description'],
  brand: ['brand'],
  sku: ['sku'],
  gtin: ['gtin13', 'gtin', 'gtin12', 'gtin14', 'gtin8'],
};

function jsonItems($: CheerioAPI): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  const visit = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (o['@graph']) visit(o['@graph']);
      if (o['@type']) out.push(o);
    }
  };
  $('script[type="application/ld+json"]').each((_, el) => {
    try {
      visit(JSON.parse($(el).text()));
    } catch {
      // A page's broken JSON-LD says nothing.
    }
  });
  return out;
}

const typesOf = (o: Record<string, unknown>) => [o['@type']].flat().map(String);

/** The JSON-LD object describing the page's own item, if the page declares one. */
function mainJsonItem($: CheerioAPI): Record<string, unknown> | undefined {
  const items = jsonItems($).filter((o) => typesOf(o).some((t) => ITEM_TYPES.test(t)));
  // A site's own LocalBusiness or Organization beside an article: the article is the page's item.
  for (const family of [/article|posting/i, /product/i, /event/i]) {
    const of = items.filter((o) => typesOf(o).some((t) => family.test(t)));
    if (of.length > 0) return of.length === 1 ? of[0] : undefined;
  }
  return items.length === 1 ? items[0] : undefined;
}

/** Does the page say it is one item (an article, a product), by JSON-LD, Open Graph or microdata? */
export function declaresOneItem($: CheerioAPI): boolean {
  if (mainJsonItem($)) return true;
  if (ITEM_TYPES.test($('meta[property="og:type"]').attr('content')?.trim() ?? '')) return true;
  const scopes = $('[itemscope][itemtype]')
    .toArray()
    .filter((el) => ITEM_TYPES.test((el.attribs.itemtype ?? '').split('/').pop() ?? ''));
  return scopes.length === 1;
}

function jsonValue(item: Record<string, unknown>, path: string): string | undefined {
  let v: unknown = item;
  for (const key of path.split('.')) {
    if (Array.isArray(v)) v = v[0];
    v = v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
  }
  if (Array.isArray(v)) v = v[0];
  if (v && typeof v === 'object') v = (v as Record<string, unknown>).name ?? (v as Record<string, unknown>).url;
  return typeof v === 'string' || typeof v === 'number' ? normalizeText(String(v)) : undefined;
}

/** A web or email address in brackets after an author's name, as meta tags write it. */
const AUTHOR_ADDRESS = /\s*[(<[][^)>\]]*(?:https?:\/\/|@)[^)>\]]*[)>\]]\s*$/;

/** Links to the site's home page: the site's name in its header, marked up as a headline by some themes. */
const HOME_LINK = 'a[rel~="home"], a[href="/"]';

/** The site's name: an element that is, holds or sits in a link to the home page. */
const homeLink = ($: CheerioAPI, el: Element) =>
  $(el).is(HOME_LINK) || $(el).find(HOME_LINK).length > 0 || $(el).closest(HOME_LINK).length > 0;

function hintsFor($: CheerioAPI, concept: Concept): Hint[] {
  const hints: Hint[] = [];
  const item = mainJsonItem($);
  for (const key of (item && JSON_KEYS[concept]) || []) {
    const v = jsonValue(item as Record<string, unknown>, key);
    if (v) hints.push({ value: v });
  }
  for (const name of META_NAMES[concept] ?? []) {
    for (const attr of ['property', 'name']) {
      const selector = `meta[${attr}=${cssString(name)}]`;
      const v = normalizeText($(selector).first().attr('content') ?? '');
      if (v) hints.push({ value: v, meta: { selector, attribute: 'content' } });
    }
  }
  for (const prop of ITEMPROPS[concept] ?? []) {
    const el = $(`[itemprop=${cssString(prop)}]`)
      .filter((_, e) => !inBreadcrumbs($, e) && !homeLink($, e))
      .first();
    const content = el.attr('content');
    if (content)
      hints.push({
        value: normalizeText(content),
        meta: { selector: `[itemprop=${cssString(prop)}]`, attribute: 'content' },
      });
    else if (el.length > 0) hints.push({ value: normalizeText(el.text()) });
  }
  return hints.filter((h) => h.value !== '' && h.value.length < 500);
}

/**
 * What the page says about itself that no field takes, for a missing field's note: up to three values of
 * its JSON-LD item and meta tags, with where they are ("JSON-LD author.name", `meta[name="author"]`).
 */
export function pageCandidates($: CheerioAPI): string[] {
  const out: string[] = [];
  const item = mainJsonItem($);
  for (const [key, value] of Object.entries(item ?? {})) {
    const v = jsonValue({ [key]: value }, key);
    if (!key.startsWith('@') && v) out.push(`JSON-LD ${key} ("${v.length > 40 ? `${v.slice(0, 37)}...` : v}")`);
  }
  $('head meta[content]').each((_, el) => {
    const name = el.attribs.property ?? el.attribs.name;
    const v = normalizeText(el.attribs.content ?? '');
    if (name && v && !/^(?:viewport|robots|charset|theme-color|og:image|twitter:card)/i.test(name))
      out.push(
        `meta[${el.attribs.property ? 'property' : 'name'}="${name}"] ("${v.length > 40 ? `${v.slice(0, 37)}...` : v}")`,
      );
  });
  return out.slice(0, 3);
}

/** Body elements by their whole text, innermost first (only texts short enough to be one value). */
function elementsByText($: CheerioAPI): Map<string, Element[]> {
  const byText = new Map<string, Element[]>();
  const walk = (el: Element): string => {
    let text = '';
    for (const c of el.children ?? []) {
      if (c.type === 'text') text += (c as unknown as { data: string }).data;
      else if (isElement(c) && !['script', 'style', 'noscript', 'template', 'svg'].includes(c.name)) text += walk(c);
    }
    const t = text.length < 600 ? normalizeText(text) : '';
    if (t) pushTo(byText, t, el);
    return text;
  };
  const body = $('body')[0];
  if (body) walk(body);
  return byText;
}

/** A selector whose first match in the document is `el`. */
export function firstMatchSelector($: CheerioAPI, el: Element): string | null {
  const tries: string[] = [];
  const id = el.attribs.id;
  if (id && /^[A-Za-z][\w-]*$/.test(id)) tries.push(`#${id}`);
  for (const a of ['itemprop', 'rel', 'data-testid', 'property'])
    if (el.attribs[a]) tries.push(`${el.name}[${a}=${cssString(el.attribs[a])}]`);
  const classes = stableClasses(el);
  for (const c of classes) tries.push(`${el.name}.${c}`);
  tries.push(el.name);
  const parent = el.parent;
  if (isElement(parent) && parent.name !== 'body') {
    const p = firstMatchSelector($, parent);
    if (p) for (const t of tries.slice(-Math.min(tries.length, 2))) tries.push(`${p} > ${t}`);
  }
  // Last, its position from the nearest ancestor with an id (or from the body): classes built by a
  // stylesheet tool ("InfoSliceValue-gTzwxg") name nothing that lasts.
  tries.push(positionPath(el));
  for (const selector of tries) {
    try {
      if ($(selector).first()[0] === el) return selector;
    } catch {
      // not a valid selector for this engine
    }
  }
  return null;
}

function positionPath(el: Element): string {
  const steps: string[] = [];
  for (let e: Element | null = el; e && e.name !== 'body'; e = isElement(e.parent) ? e.parent : null) {
    const id = e.attribs.id;
    if (id && /^[A-Za-z][\w-]*$/.test(id) && !/\d{3,}/.test(id)) {
      steps.unshift(`#${id}`);
      return steps.join(' > ');
    }
    const parent = e.parent;
    const index = isElement(parent)
      ? parent.children.filter((c) => isElement(c) && c.name === e?.name).indexOf(e) + 1
      : 1;
    steps.unshift(`${e.name}:nth-of-type(${index})`);
  }
  return `body > ${steps.join(' > ')}`;
}

const transformFor = (concept: Concept | undefined, value: string): AgentField['transform'] =>
  (concept === 'price' || concept === 'rating' || concept === 'reviews') &&
  /\d/.test(value) &&
  !/\d,\d{1,2}(?!\d)/.test(value)
    ? 'number'
    : 'trim';

/** Fields of the page as one record: one per request found; the others are returned as missing. */
export function pageRecordFields(
  $: CheerioAPI,
  requests: PromptRequest[],
): { fields: AgentField[]; missing: PromptRequest[]; deferred: Array<{ request: PromptRequest; field: AgentField }> } {
  const byText = elementsByText($);
  const fields: AgentField[] = [];
  const missing: PromptRequest[] = [];
  const deferred: Array<{ request: PromptRequest; field: AgentField }> = [];
  const used = new Set<string>();
  let priceSelector: string | undefined;
  for (const request of requests) {
    const concept = request.concept ?? conceptOfWord(request.word);
    let field: AgentField | undefined;
    const take = (el: Element | undefined, value: string, anchored?: string) => {
      const selector = el && (firstMatchSelector($, el) ?? anchored);
      if (!selector || used.has(selector)) return false;
      field = { name: fieldName(request.word), selector, transform: counted ? 'number' : transformFor(concept, value) };
      return true;
    };
    // A label on the page naming the very word ("Author" next to "Julian Tompkin"); a count by the
    // counted thing ("Parts : 4 pers." for "le nombre de parts").
    const counted = isCountRequest(request);
    const labelWord = counted ? normalizeWord(request.written ?? countedThing(request)) : request.word;
    const conceptLabels = concept && !counted && !UNLABELLED.has(concept) ? CONCEPT_WORDS[concept] : [];
    let labelled = labelledValue($, labelWord, concept === undefined, conceptLabels);
    // A sidebar's box or a menu titled "Categories" or "Tags" lists the site's, not the page's.
    if (labelled && (concept === 'category' || concept === 'tags') && inSiteBox($, labelled.el)) labelled = undefined;
    if (labelled?.line && !used.has(labelled.line))
      // One line of several labelled in one element: the text after its label, without the separator.
      field = { name: fieldName(request.word), xpath: labelled.line, transform: AFTER_SEPARATOR };
    else if (labelled?.after) {
      // The rest of the label's paragraph: its text after the label and the separator.
      const label = labelled.after.split(/\s+/).map(escapeRegex).join(`${SPACE}+`);
      if (take(labelled.el, $(labelled.el).text(), labelled.anchored) && field)
        field = {
          ...field,
          transform: [{ regex: `^${SPACE}*${label}[\\s\\p{Z}:\\-–—|·]*(.+?)${SPACE}*$`, group: 1, flags: 's' }],
        };
    } else if (labelled && !labelled.ownText) take(labelled.el, $(labelled.el).text(), labelled.anchored);
    else if (labelled?.ownText && take(labelled.el, ownText(labelled.el), labelled.anchored) && field)
      // Its own text without the separator after the label (": OLB" -> "OLB").
      field = { ...field, attribute: 'ownText', transform: AFTER_SEPARATOR };
    // No element holds the label: a line of text opening with it ("KVK-nummer: 14626903<br>").
    if (!field && !labelled && !counted) {
      const line = textLineField($, fieldName(request.word), labelWord, conceptLabels);
      if (line && !used.has(line.xpath as string)) field = line;
    }
    // The price before a reduction, struck through beside the current one.
    const struck = !field && concept === 'price' && asksForFormer(request) ? struckPrice($) : undefined;
    if (struck) take(struck, $(struck).text());
    // A count inside a text ("(33 Bewertungen)", "4.1/5 - (62 votes)"): the number before the thing's word.
    const inText = !field && counted ? countInText($, request) : undefined;
    if (inText && take(inText.el, '') && field) field = { ...field, transform: inText.transform };
    // A time no label names, shown alone after the title ("20-30 min.", "Fertig in 15 Minuten").
    const lasting = !field && concept === 'duration' ? durationAfterHeading($) : undefined;
    if (lasting) take(lasting, ownText(lasting));
    // Categories or tags asked for in the plural are the links filing the page (detail.ts finds them): the
    // metadata's one section would take the first of them alone, wherever the page shows it.
    const several =
      (concept === 'category' || concept === 'tags') &&
      asksForSeveral(request.written ? fieldName(request.written) : fieldName(request.word));
    const hints = field || !concept || several ? [] : hintsFor($, concept);
    // A title the page's metadata gives and no heading shows, on a page with one main heading: the
    // metadata's title carries the site's name ("… - Breitbart") or names the publisher; the heading is
    // the title.
    const heading = concept === 'title' ? mainHeading($) : undefined;
    for (const hint of hints) {
      // A count or a score is shown alone or in brackets ("(489)" for a ratingCount of 489).
      const shown =
        byText.get(hint.value) ?? (/^\d[\d.,]*$/.test(hint.value) ? byText.get(`(${hint.value})`) : []) ?? [];
      // Of the elements showing the value, a heading for a title, else the first in the page.
      // Or a heading opening the metadata's longer title, shown nowhere whole.
      const opening = concept === 'title' && shown.length === 0 ? headingOpening($, hint.value) : undefined;
      const titled = shown.find((e) => /^h[1-3]$/.test(e.name)) ?? opening;
      if (heading && !titled) continue;
      const el = (concept === 'title' && titled) || shown[0];
      if (take(el, hint.value)) break;
    }
    // The first thing asked for, by a word naming no field ("l'album, la note, ..."; "the model, its
    // price"), is what the page is about: its one main heading, when no label holds the word.
    if (
      !field &&
      (concept === 'title' ||
        (concept === undefined && request === requests[0] && requests.length > 1 && !request.word.includes('_')))
    ) {
      const heading = mainHeading($);
      if (heading) take(heading, $(heading).text());
    }
    // No heading and no metadata: the part of the document's <title> the page shows.
    if (!field && concept === 'title') {
      const titled = documentTitleField($, fieldName(request.word));
      if (titled && !used.has(titled.selector as string)) field = titled;
    }
    // An author or date no element shows (the site's name as the author, a machine date) is deferred:
    // an element of the page showing one comes first, the meta tag is the fallback.
    const meta = hints.find((h) => h.meta);
    if (!field && meta?.meta && !used.has(meta.meta.selector)) {
      field = {
        name: fieldName(request.word),
        selector: meta.meta.selector,
        attribute: meta.meta.attribute,
        // An author's address after the name ("Bradley M. Kuhn (http://ebb.org/bkuhn/)") is not the name.
        transform:
          concept === 'author' && AUTHOR_ADDRESS.test(meta.value)
            ? ['trim', { replace: AUTHOR_ADDRESS.source, with: '' }]
            : transformFor(concept, meta.value),
      };
      // A date's machine form in a visible element's attribute (`<time itemprop="datePublished"
      // content="2016-11-18">November 18, 2016</time>`) is deferred alike: the text shown comes first.
      const machineDate = concept === 'date' && meta.meta.selector.startsWith('[itemprop=');
      if ((meta.meta.selector.startsWith('meta[') && (concept === 'author' || concept === 'date')) || machineDate)
        deferred.push({ request, field });
    }
    // The currency: the sign or code the price is shown with (currency-field.ts).
    if (!field && concept === 'currency') {
      const priceEl = $(priceSelector ?? 'body [itemprop="price"]').first()[0] as Element | undefined;
      field = currencyField($, fieldName(request.word), priceEl, (el) => firstMatchSelector($, el));
    }
    if (field) {
      used.add((field.selector ?? field.xpath) as string);
      fields.push(field);
      if (concept === 'price' && !field.attribute) priceSelector ??= field.selector;
    } else missing.push(request);
  }
  return { fields, missing, deferred };
}
