// A badge a shop writes at the start of some names, in an element of its own inside the name's element
// ("<a><span>NEW!</span> Charter Club Bracelet Watch</a>", "<h3><b>SALE</b> Linen shirt</h3>"): it marks the
// item, it is not part of its name. The name's field drops it where a record has it.
import type { AgentField } from '../../../engine/definition.js';
import { normalizeText } from './dom-text.js';
import { conceptOfWord } from './naming.js';
import type { CheerioAPI } from 'cheerio';
import { escapeRegex } from './regex-text.js';

/** A badge is a word or two: longer openings are part of the name. */
const BADGE_MAX_LENGTH = 12;

/** Written as a badge: in capitals or with an exclamation mark ("NEW!", "SALE", "Neu!"), no digits. */
const BADGE_SHAPE = /^(?:[\p{Lu}\s-]{2,}!?|[\p{L}\s-]{2,}!)$/u;

/** A title field whose element opens with a badge element in some records, freed of that badge. */
export function withoutBadge(page: { $: CheerioAPI }, records: unknown[], field: AgentField): AgentField {
  if (conceptOfWord(field.name.split('_')[0]) !== 'title' && conceptOfWord(field.name) !== 'title') return field;
  if (!field.selector || field.xpath || (field.attribute && field.attribute !== 'text')) return field;
  if (field.transform !== undefined && field.transform !== 'trim') return field;
  const $ = page.$;
  const badges = new Set<string>();
  for (const el of records) {
    const target = $(el as never)
      .find(field.selector)
      .first();
    const first = target.children().first();
    if (first.length === 0) continue;
    const badge = normalizeText(first.text());
    const whole = normalizeText(target.text());
    if (
      badge.length > 0 &&
      badge.length <= BADGE_MAX_LENGTH &&
      BADGE_SHAPE.test(badge) &&
      whole.startsWith(badge) &&
      whole.length >= badge.length * 3
    )
      badges.add(badge);
  }
  if (badges.size === 0 || badges.size > 3) return field;
  const alternatives = [...badges].map(escapeRegex).join('|');
  return { ...field, transform: ['trim', { replace: `^\\s*(?:${alternatives})\\s*`, with: '' }] };
}
