// What the structure readers produce: candidate record containers and the fields aligned across them.
import type { FieldTransform } from '../../../engine/definition.js';
import type { Concept } from './naming.js';

export type ValueKind = 'text' | 'link' | 'image' | 'attribute';

export interface CandidateField {
  /** Identifies the field within its candidate (stable across analyses of the same page). */
  key: string;
  kind: ValueKind;
  selector?: string;
  /** An XPath from the record element, for values outside it (the parts of a sibling run); no selector then. */
  xpath?: string;
  attribute?: string;
  transform?: FieldTransform;
  /** Share of the records that have a value. */
  coverage: number;
  /** Values of the first records, as the page shows them (before transforms). */
  samples: string[];
  /** What the values look like or the markup says (title, price...), if anything. */
  concept?: Concept;
  /** A table header, definition term or "Label:" that names the value. */
  label?: string;
  /** The element's classes, id and naming attributes, then its ancestors' inside the record. */
  hints: string[];
  /** The element's own. */
  ownHints: string[];
  tag: string;
  /** Depth below the record container (0: the container itself). */
  depth: number;
  /** Average length of the values. */
  averageLength: number;
  /** Index of the field in document order within the record. */
  order: number;
  /** Indexes of the records that have a value. */
  present: number[];
  /** An image's alternative texts in the first records (what the picture shows: a person, a product). */
  alts?: string[];
}

export interface Candidate {
  selector: string;
  count: number;
  score: number;
  /** Share of the page's text inside the records. */
  textShare: number;
  fields: CandidateField[];
  /** What set the candidate ahead or back beyond its size and fields, in words for the session's events. */
  why?: string;
  /** The page's own word for the records, when the prompt names them with it (a class, a heading). */
  recordWord?: string;
}
