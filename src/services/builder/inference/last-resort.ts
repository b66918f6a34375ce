// Fields found when nothing names a request: the records' credited source for their author, their
// longest text for their text. Used by select-fields.ts at the end of its search.
import type { CandidateField } from './candidate.js';
import type { Concept, PromptRequest } from './naming.js';

/**
 * "The author of each result" where the records credit a source ("<cite>PA Sport</cite>", "ESPN staff"):
 * with no author of their own, the credited source is who wrote it.
 */
export function creditedSource(
  request: PromptRequest,
  free: CandidateField[],
  roles: Map<CandidateField, Concept | undefined>,
): CandidateField | undefined {
  if (request.concept !== 'author') return undefined;
  return free.find((f) => f.kind === 'text' && f.coverage >= 0.5 && roles.get(f) === 'publisher');
}

/** A text this long is a record's text, not its heading or a label. */
const LONG_TEXT = 60;

/**
 * "The text of each comment" where the records' one long text took the title's role (no heading names
 * one): the longest text free.
 */
export function longestText(request: PromptRequest, free: CandidateField[]): CandidateField | undefined {
  if (request.concept !== 'description') return undefined;
  return free
    .filter((f) => f.kind === 'text' && f.coverage >= 0.5 && f.averageLength > LONG_TEXT)
    .sort((a, b) => b.averageLength - a.averageLength)[0];
}
