// Signs in a record's own texts and links of which text names it, when no heading or class does: the text
// its picture is described by (an image's alt), and the text of the link the record repeats (around its
// photo, its title, its "more" button), which goes to the record's own page.
import type { CandidateField } from './candidate.js';

/**
 * A text inside a link whose addresses another link of the record has too (the first records' alike): the
 * record's main link is repeated around its picture, its title, its "more" button.
 */
export function linksTwice(f: CandidateField, fields: CandidateField[]): boolean {
  const path = f.key.split('|')[0];
  const links = fields.filter((l) => l.kind === 'link');
  // The anchor around the text: the link field at the text's path or at the nearest path above it.
  const own = links
    .filter((l) => {
      const at = l.key.split('|')[0];
      return at === path || path.startsWith(`${at}/`);
    })
    .sort((a, b) => b.key.length - a.key.length)[0];
  if (!own || own.samples.length < 2) return false;
  const same = (l: CandidateField) => l.samples.slice(0, 3).join('\n') === own.samples.slice(0, 3).join('\n');
  return links.some((l) => l !== own && same(l));
}

/** A text whose values are the alternative texts of one of the record's images (most of the first ones). */
export function describesPicture(f: CandidateField, fields: CandidateField[]): boolean {
  const sample = f.samples.map((v) => v.trim()).filter((v) => v !== '');
  if (f.kind !== 'text' || sample.length < 2 || new Set(sample).size < 2) return false;
  return fields.some((i) => {
    if (i.kind !== 'image' || (i.alts?.length ?? 0) < 2) return false;
    const alts = new Set(i.alts);
    return sample.filter((v) => alts.has(v)).length >= 0.8 * sample.length;
  });
}
