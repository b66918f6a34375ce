// The words of a byline in the prompts' languages: the verb it may open with ("Posted", "Verfasst",
// "publié") and the word before the author's name ("by", "von", "par", "por", "door"). One source for
// the rules that read an author out of a byline (value-form.ts, detail.ts) or name an element the author
// because a byline's words stand right before it (values.ts).

/** "Posted", "geschrieben", "publié"...: the verb a byline may open with, before its "by". */
export const BYLINE_VERB =
  '(?:posted|written|published|reported|geschrieben|verfasst|veröffentlicht|publié|écrit|rédigé|publicado|escrito|pubblicato|scritto|geplaatst|geschreven)';

/** The word before an author's name that says little else ("de", "van" are also names' particles). */
export const BYLINE_BY = '(?:by|von|par|por|door|di|da|af|av)';

/** A text ending in a byline's words, so that the element after it is the author ("Verfasst von <a>…"). */
const ENDS_IN_BYLINE = new RegExp(`(?:^|[\\s(])(?:${BYLINE_VERB}\\s+)?${BYLINE_BY}\\s*:?\\s*$`, 'i');

/** Whether the text right before an element (its previous sibling's text) ends in a byline's words. */
export function endsInByline(textBefore: string): boolean {
  return ENDS_IN_BYLINE.test(textBefore.replace(/\s+/g, ' '));
}
