// The fields a prompt that names none gets: every field that says what it is, once, named by its label,
// its concept or its class words; and a value that sits in different places in different records joined
// into one field.
import type { CandidateField } from './candidate.js';
import { CONCEPT_WORDS, fieldName, tokenWords, type Concept } from './naming.js';
import type { Named } from './named-field.js';

const MAX_DEFAULT_FIELDS = 10;
/** A prompt that names no field gets the fields present in at least this share of the records. */
const DEFAULT_FIELD_COVERAGE = 0.4;

/** A name from the markup when no concept applies: a label, else a meaningful class word. */
function markupName(field: CandidateField): string | undefined {
  if (field.label) return fieldName(field.label);
  for (const hint of field.hints) {
    const ws = tokenWords(hint).filter(
      (w) =>
        ![
          'item',
          'card',
          'product',
          'list',
          'entry',
          'row',
          'col',
          'text',
          'value',
          'field',
          'info',
          'meta',
          'data',
          'wrapper',
          'inner',
          'content',
        ].includes(w) && w.length > 2,
    );
    if (ws.length > 0) return fieldName(ws.join('_'));
  }
  return undefined;
}

/** A label on the page ("City", "Population") names a field better than its concept. */
function defaultName(field: CandidateField, concept: Concept | undefined): string | undefined {
  if (field.label && concept !== 'link' && concept !== 'image') return fieldName(field.label);
  if (concept) return CONCEPT_WORDS[concept][0];
  return markupName(field);
}

/**
 * A value that sits in different places in different records (a regular price, a sale price in
 * <ins>): fields of the same concept present in disjoint records are joined into one selector list.
 */
export function withAlternatives(
  field: CandidateField,
  fields: CandidateField[],
  roles: Map<CandidateField, Concept | undefined>,
): CandidateField {
  if (field.coverage >= 0.95 || !field.selector) return field;
  // Named alike: of one concept, or one class of their own on different tags (a linked ingredient's
  // <a class="x"> in some records, a plain one's <span class="x"> in the others).
  const sameClass = (other: CandidateField) =>
    field.kind === 'text' && other.tag !== field.tag && other.ownHints.some((h) => field.ownHints.includes(h));
  const alike = (other: CandidateField) =>
    (roles.get(field) !== undefined && roles.get(other) === roles.get(field)) || sameClass(other);
  let merged = field;
  const covered = new Set(field.present);
  for (const other of fields) {
    if (
      other === field ||
      !other.selector ||
      other.kind !== field.kind ||
      other.attribute !== field.attribute ||
      !alike(other)
    )
      continue;
    if (other.present.some((i) => covered.has(i))) continue;
    for (const i of other.present) covered.add(i);
    merged = {
      ...merged,
      selector: `${merged.selector}, ${other.selector}`,
      coverage: merged.coverage + other.coverage,
      present: [...covered],
    };
  }
  return merged;
}

/** The prompt names nothing that matches: every field that says what it is, once, in the record's order. */
export function defaultFields(
  fields: CandidateField[],
  roles: Map<CandidateField, Concept | undefined>,
): Map<CandidateField, Named> {
  const chosen = new Map<CandidateField, Named>();
  // The prompt names nothing we can match: take every field that says what it is, once.
  const byConcept = new Map<Concept, CandidateField>();
  const path = (f: CandidateField) => f.key.replace(/^\+/, '').split('|')[0];
  for (const field of fields) {
    const concept = roles.get(field);
    if (field.coverage < DEFAULT_FIELD_COVERAGE) continue;
    // Secondary links (a thumbnail's, "add to cart", a vote arrow) repeat or distract from the main one.
    if (field.kind === 'link' && concept !== 'link') continue;
    // The same text twice (a linked capital that is also the longest link text) is kept once.
    if (
      field.kind === 'text' &&
      [...chosen.keys()].some((c) => c.kind === 'text' && c.samples.join('|') === field.samples.join('|'))
    )
      continue;
    const seen = concept ? byConcept.get(concept) : undefined;
    if (seen) {
      // Of a byline and the author name inside it, the inner element holds just the value.
      if (field.kind === 'text' && seen.kind === 'text' && path(field).startsWith(`${path(seen)}/`)) {
        chosen.set(field, { ...(chosen.get(seen) as Named), field });
        chosen.delete(seen);
        byConcept.set(concept as Concept, field);
      }
      continue;
    }
    const name = defaultName(field, concept);
    if (!name) continue;
    if (concept) byConcept.set(concept, field);
    chosen.set(field, { field: withAlternatives(field, fields, roles), concept, name });
    if (chosen.size >= MAX_DEFAULT_FIELDS) break;
  }
  return chosen;
}
