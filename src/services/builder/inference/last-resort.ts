// Fields found when nothing names a request: the records' credited source for their author, their
// longest text for their text. Used by select-fields.ts at the end of its search.
import type { CandidateField } from './candidate.js';
import { conceptOfValues, isTimeWord, type Concept } from './naming.js';
import { type PromptRequest } from './prompt-requests.js';

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

/** A description shorter than a record's text: a line of words under a card's heading. */
const SHORT_DESCRIPTION = 20;

/** A text inside a paragraph (its own `<p>` or a child's, `<p><a>…</a></p>`). */
function inParagraph(f: CandidateField): boolean {
  return f.tag === 'p' || /\/p(?=[.[{/]|$)/.test(f.key.split('|')[0]);
}

/**
 * "The text of each comment" where the records' one long text took the title's role (no heading names
 * one): the longest text free. Cards with no long text describe their item in a short paragraph under
 * the heading ("<h3>culture41.fr</h3><p>Musique, danse, théâtre...</p>"): the longest such paragraph
 * every record holds.
 */
export function longestText(request: PromptRequest, free: CandidateField[]): CandidateField | undefined {
  if (request.concept !== 'description') return undefined;
  const longest = (fs: CandidateField[]) => [...fs].sort((a, b) => b.averageLength - a.averageLength)[0];
  const texts = free.filter((f) => f.kind === 'text' && f.coverage >= 0.5);
  return (
    longest(texts.filter((f) => f.averageLength > LONG_TEXT)) ??
    longest(
      texts.filter(
        (f) =>
          f.coverage >= 0.8 &&
          f.averageLength >= SHORT_DESCRIPTION &&
          inParagraph(f) &&
          conceptOfValues(f.samples) === undefined,
      ),
    )
  );
}

/** A value every record nearly always has. */
const FULL_COVERAGE = 0.8;

/**
 * A word naming nothing the page labels or shapes ("horario de apertura") in records that hold just as
 * many values as the prompt asks for, the others taken ("Maandag" for the day): the one value left is it.
 */
export function onlyValueLeft(
  request: PromptRequest,
  free: CandidateField[],
  all: CandidateField[],
  asked: number,
): CandidateField | undefined {
  // A time of day is read from the text it shares with its date (date-time.ts), not as what is left.
  if (request.concept !== undefined || asked < 2 || isTimeWord(request.word)) return undefined;
  const values = (fs: CandidateField[]) => fs.filter((f) => f.kind === 'text' && f.coverage >= FULL_COVERAGE);
  const left = values(free);
  return left.length === 1 && values(all).length === asked ? left[0] : undefined;
}
