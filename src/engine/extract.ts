// Reading a record's fields from a parsed page: locate (CSS selector, XPath, or the element itself), read
// (text, own text, inner HTML, an attribute), then transform; `multiple` keeps every match as an array and
// nested `fields` make an object of each match.
import type { FieldSpec, FieldStep } from './definition-fields.js';
import { attrOf, htmlOf, selectAll, selectFirst, textOf, type AnyNode, type Document } from './select.js';
import { applySteps, parseNumber, resolveUrl, type FieldValue, type TransformTally } from './transforms.js';
import { selectXPath, type XPathMatch } from './xpath.js';
import { isTag, isText } from 'domutils';

export { parseNumber, resolveUrl, type FieldValue, type TransformTally } from './transforms.js';
export type ExtractedRecord = Record<string, FieldValue>;

/** A field's located match: a node of the tree, or a value an XPath gave directly (an attribute's, a string). */
type Match = XPathMatch;

/** The element's own text nodes, without its children's text, whitespace collapsed; a line break between two is a space. */
function ownTextOf(node: AnyNode): string {
  if (isText(node)) return node.data.replace(/\s+/g, ' ').trim();
  if (!('children' in node)) return '';
  let text = '';
  for (const child of node.children)
    if (isText(child)) text += child.data;
    else if (isTag(child) && child.name === 'br') text += ' ';
  return text.replace(/\s+/g, ' ').trim();
}

function readAttribute(target: AnyNode | undefined, attribute: string | undefined): string | null {
  if (target === undefined) return null;
  switch (attribute ?? 'text') {
    case 'text':
      return textOf(target);
    case 'html':
      return htmlOf(target);
    case 'ownText':
      return ownTextOf(target);
    default:
      return attrOf(target, attribute as string) ?? null;
  }
}

/** A match's value: a text node's text whatever the attribute; a value given directly as it is. */
function readMatch(match: Match, attribute: string | undefined): string | null {
  if ('value' in match) return match.value;
  if (isText(match.node) && attribute !== 'ownText' && attribute !== 'html') return match.node.data;
  return readAttribute(match.node, attribute);
}

function locate(root: Document, scope: AnyNode, field: FieldSpec, limit: number): Match[] {
  if (field.xpath !== undefined) return selectXPath(scope, field.xpath, root, limit);
  if (!field.selector) return [{ node: scope }];
  return selectAll(scope, field.selector, root, limit).map((node) => ({ node }));
}

const stepsOf = (field: FieldSpec) =>
  field.transform === undefined ? [] : Array.isArray(field.transform) ? field.transform : [field.transform];

/** Whether the field uses nothing beyond a CSS selector, a read and at most one of the first transforms. */
function isPlain(field: FieldSpec): boolean {
  return (
    field.xpath === undefined &&
    field.multiple !== true &&
    field.fields === undefined &&
    field.attribute !== 'ownText' &&
    (field.transform === undefined ||
      field.transform === 'trim' ||
      field.transform === 'number' ||
      field.transform === 'absoluteUrl')
  );
}

function valueOf(root: Document, match: Match, field: FieldSpec, baseUrl: string, tally: TransformTally): FieldValue {
  if (field.fields) {
    // Nested fields read inside an element match; a text or attribute match has nothing inside.
    const scope = 'node' in match && (isTag(match.node) || match.node === root) ? match.node : null;
    const record: ExtractedRecord = {};
    for (const inner of field.fields)
      record[inner.name] = scope ? extractField(root, scope, inner, baseUrl, tally) : emptyValue(inner);
    return record;
  }
  return applySteps(readMatch(match, field.attribute), stepsOf(field), baseUrl, tally);
}

type PlainStep = Extract<FieldStep, 'trim' | 'number' | 'absoluteUrl'>;

/** A plain field's one transform on its text, as the transform steps give it, without their array plumbing. */
function plainTransform(value: string | null, step: PlainStep | undefined, baseUrl: string): FieldValue {
  if (value === null || step === undefined) return value;
  if (step === 'trim') return value.trim();
  if (step === 'number') return parseNumber(value);
  return resolveUrl(value, baseUrl);
}

const emptyValue = (field: FieldSpec): FieldValue => (field.multiple ? [] : null);
const noTally: TransformTally = { unparsedDates: 0 };

/**
 * Reads one field relative to `scope` (the list element, or the document of a detail page). A plain field
 * reads as cheerio's `$(scope).find(selector).first()` then `.text()`, `.html()` or `.attr()` would.
 */
export function extractField(
  root: Document,
  scope: AnyNode,
  field: FieldSpec,
  baseUrl: string,
  tally: TransformTally = noTally,
): FieldValue {
  if (isPlain(field)) {
    const target = selectFirst(scope, field.selector, root);
    return plainTransform(readAttribute(target, field.attribute), field.transform as PlainStep | undefined, baseUrl);
  }
  const matches = locate(root, scope, field, field.multiple ? Infinity : 1);
  if (field.multiple) return matches.map((m) => valueOf(root, m, field, baseUrl, tally));
  if (matches.length === 0) return field.fields ? null : applySteps(null, stepsOf(field), baseUrl, tally);
  return valueOf(root, matches[0], field, baseUrl, tally);
}

/** The fields' values, written into `into` when given (a detail page completing its list record). */
export function extractFields(
  root: Document,
  scope: AnyNode,
  fields: FieldSpec[],
  baseUrl: string,
  into: ExtractedRecord = {},
  tally: TransformTally = noTally,
): ExtractedRecord {
  for (const field of fields) into[field.name] = extractField(root, scope, field, baseUrl, tally);
  return into;
}

/** A link's target (resolved) from a located match: an element's href, or a text or attribute value. */
export function linkOfMatch(match: Match | undefined, baseUrl: string): string | null {
  if (match === undefined) return null;
  const href = 'value' in match ? match.value : isText(match.node) ? match.node.data : attrOf(match.node, 'href');
  return href === undefined ? null : resolveUrl(href, baseUrl);
}

/** One transform (or none) on one value read from a page. */
export function applyTransform(
  value: string | null,
  transform: FieldSpec['transform'],
  baseUrl: string,
  tally: TransformTally = noTally,
): FieldValue {
  return transform === undefined ? value : applySteps(value, stepsOf({ name: '', transform }), baseUrl, tally);
}

/** A required value is missing when it is null, blank, or an empty array. */
export function isMissing(value: FieldValue | undefined): boolean {
  return (
    value === null ||
    value === undefined ||
    (typeof value === 'string' && value.trim() === '') ||
    (Array.isArray(value) && value.length === 0)
  );
}
