// Pagination: a selector whose first match's href is the next list page (rel=next, a "next" link or
// button, or the link after the current page marker), checked against the page it came from.
import type { CheerioAPI } from 'cheerio';
import { resolveUrl } from '../../../engine/extract.js';
import { cssString, isElement, stableClasses } from './selectors.js';

export interface PaginationGuess {
  selector: string;
  nextUrl: string;
  /** How it was recognised, for the events. */
  how: string;
}

const NEXT_TEXT =
  /^(?:next(?: page)?|more|older(?: posts)?|load more|suivant|weiter|siguiente|[›»→>]|next\s*[›»→>]|[›»→>]\s*next)$/i;

function pageNumberOf(url: string): { param: string; value: number } | null {
  try {
    const u = new URL(url);
    for (const param of ['page', 'p', 'pg', 'pageNumber', 'page_number', 'paged', 'start', 'offset']) {
      const v = u.searchParams.get(param);
      if (v !== null && /^\d+$/.test(v)) return { param, value: Number(v) };
    }
    const m = u.pathname.match(/\/page\/(\d+)\/?$/);
    if (m) return { param: '/page/', value: Number(m[1]) };
  } catch {
    // not a URL
  }
  return null;
}

function check($: CheerioAPI, selector: string, pageUrl: string): string | null {
  let href: string | undefined;
  try {
    href = $(selector).first().attr('href');
  } catch {
    return null;
  }
  if (href === undefined || href.trim().startsWith('#') || /^javascript:/i.test(href.trim())) return null;
  const next = resolveUrl(href, pageUrl);
  if (next === null || next === pageUrl) return null;
  return next;
}

export function detectPagination($: CheerioAPI, pageUrl: string): PaginationGuess | null {
  const tries: Array<[string, string]> = [
    ['a[rel~="next"]', 'a link marked rel="next"'],
    ['link[rel~="next"]', 'a <link rel="next"> in the page head'],
  ];
  // Links and buttons whose class, label or text says "next".
  $('a[href]').each((_, node) => {
    const a = node;
    const classes = stableClasses(a);
    const cls = classes.find((c) => /(^|[-_])next([-_]|$)/i.test(c));
    if (cls) tries.push([`a.${cls}`, `the "${cls}" link`]);
    const aria = a.attribs['aria-label'];
    if (aria && /next/i.test(aria) && !/["\\]/.test(aria))
      tries.push([`a[aria-label=${cssString(aria)}]`, `the link labelled "${aria}"`]);
    const parent = a.parent;
    if (isElement(parent)) {
      const pcls = stableClasses(parent).find((c) => /(^|[-_])next([-_]|$)/i.test(c));
      if (pcls) tries.push([`${parent.name}.${pcls} > a`, `the link inside "${pcls}"`]);
    }
    const text = $(a).text().replace(/\s+/g, ' ').trim();
    if (NEXT_TEXT.test(text) && !/["\\]/.test(text))
      tries.push([`a:contains(${cssString(text)})`, `the "${text}" link`]);
  });
  // The link right after the current page marker (numbered pagination without a "next").
  $('[aria-current="page"], .active, .current, .selected').each((_, node) => {
    const el = node;
    const marker =
      el.attribs['aria-current'] === 'page'
        ? '[aria-current="page"]'
        : `.${(el.attribs.class ?? '').split(/\s+/).find((c) => ['active', 'current', 'selected'].includes(c))}`;
    const container = el.name === 'a' && isElement(el.parent) && el.parent.name === 'li' ? el.parent : el;
    const markerSel = container === el ? `${el.name}${marker}` : `li:has(> a${marker})`;
    const nextSibling = $(container).next();
    if (nextSibling.length === 0) return;
    const tag = nextSibling[0] && isElement(nextSibling[0]) ? nextSibling[0].name : '*';
    tries.push([
      tag === 'a' ? `${markerSel} + a` : `${markerSel} + ${tag} a`,
      'the link after the current page number',
    ]);
  });
  const current = pageNumberOf(pageUrl);
  for (const [selector, how] of tries) {
    const next = check($, selector, pageUrl);
    if (next === null) continue;
    // A page-numbered URL must go forward, not back to page 1.
    const n = pageNumberOf(next);
    if (current && n && n.param === current.param && n.value <= current.value) continue;
    return { selector, nextUrl: next, how };
  }
  return null;
}
