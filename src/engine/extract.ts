import type { AgentField, FieldTransform } from './definition.js';
import { attrOf, htmlOf, selectFirst, textOf, type AnyNode, type Document } from './select.js';

export type FieldValue = string | number | null;
export type ExtractedRecord = Record<string, FieldValue>;

/** First number in the text, ignoring currency signs and thousands separators: '$1,234.50' -> 1234.5. */
export function parseNumber(text: string): number | null {
  const match = text.replace(/\s+/g, '').match(/[-+]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)/);
  if (!match) return null;
  const value = Number(match[0].replace(/,/g, ''));
  return Number.isFinite(value) ? value : null;
}

/** Resolves a (possibly relative) link against the page URL; null when it is no URL at all. */
export function resolveUrl(href: string, baseUrl: string): string | null {
  const trimmed = href.trim();
  if (trimmed === '') return null;
  try {
    return new URL(trimmed, baseUrl).href;
  } catch {
    return null;
  }
}

export function applyTransform(
  value: string | null,
  transform: FieldTransform | undefined,
  baseUrl: string,
): FieldValue {
  if (value === null) return null;
  switch (transform) {
    case undefined:
      return value;
    case 'trim':
      return value.trim();
    case 'number':
      return parseNumber(value);
    case 'absoluteUrl':
      return resolveUrl(value, baseUrl);
  }
}

function readAttribute(target: AnyNode | undefined, attribute: string | undefined): string | null {
  if (target === undefined) return null;
  switch (attribute ?? 'text') {
    case 'text':
      return textOf(target);
    case 'html':
      return htmlOf(target);
    default:
      return attrOf(target, attribute as string) ?? null;
  }
}

/**
 * Reads one field relative to `scope` (the list element, or the document of a detail page), as cheerio's
 * `$(scope).find(selector).first()` then `.text()`, `.html()` or `.attr()` would.
 */
export function extractField(root: Document, scope: AnyNode, field: AgentField, baseUrl: string): FieldValue {
  const target = selectFirst(scope, field.selector, root);
  return applyTransform(readAttribute(target, field.attribute), field.transform, baseUrl);
}

/** The fields' values, written into `into` when given (a detail page completing its list record). */
export function extractFields(
  root: Document,
  scope: AnyNode,
  fields: AgentField[],
  baseUrl: string,
  into: ExtractedRecord = {},
): ExtractedRecord {
  for (const field of fields) into[field.name] = extractField(root, scope, field, baseUrl);
  return into;
}

/** A required value is missing when it is null or blank. */
export function isMissing(value: FieldValue | undefined): boolean {
  return value === null || value === undefined || (typeof value === 'string' && value.trim() === '');
}
