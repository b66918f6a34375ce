// The roles the markup leaves unsaid among a candidate's aligned fields: the records' title (their
// heading, main link text or first plain text), their main link, a long description. Used by
// select-fields.ts before it answers the prompt's requests, and by detail.ts.
import type { CandidateField, Candidate } from './candidate.js';
import { conceptOfValues, tokenWords, type Concept } from './naming.js';
import { describesPicture, linksTwice } from './title-signs.js';

/** Concepts for fields the markup did not label: the main title and link, a long description. */
export function roleFields(candidate: Candidate): Map<CandidateField, Concept | undefined> {
  const fields = candidate.fields;
  const roles = new Map<CandidateField, Concept | undefined>(fields.map((f) => [f, f.concept]));
  const texts = fields.filter(
    (f) => f.kind === 'text' || (f.kind === 'attribute' && (f.attribute === 'title' || f.attribute === 'aria-label')),
  );
  const has = (c: Concept) => [...roles.values()].includes(c);
  if (!has('title')) {
    const plainish = (f: CandidateField) => f.averageLength >= 3 && !/^[\d.,#\s]+$/.test(f.samples[0] ?? '');
    // A heading, or text inside one (<h3><a>…</a></h3>), or an element classed as a title.
    const inHeading = (f: CandidateField) => /^h[1-6]$/.test(f.tag) || /\/h[1-6](?=[.[{/]|$)/.test(f.key.split('|')[0]);
    // Not a value the markup names as something else ("bbp-author-name" is an author's name).
    const heading = texts.find(
      (f) =>
        plainish(f) &&
        (inHeading(f) ||
          (!roles.get(f) &&
            f.ownHints.some((h) => tokenWords(h).some((w) => ['title', 'name', 'heading', 'headline'].includes(w))))),
    );
    // The record's main link names it: the longest text inside an anchor (its own or a child's).
    // Of those, first a text whose link goes where another of the record's links goes too (the photo's):
    // the record's own page, not a side link ("Share memories", a guestbook) however long its text.
    const linkText = texts
      .filter((f) => inAnchor(f) && f.coverage >= 0.8 && !roles.get(f) && plainish(f))
      .sort(
        (a, b) => Number(linksTwice(b, fields)) - Number(linksTwice(a, fields)) || b.averageLength - a.averageLength,
      )[0];
    const plain = (f: CandidateField) =>
      f.averageLength >= 3 &&
      f.averageLength < 150 &&
      !/^\d/.test(f.samples[0] ?? '') &&
      conceptOfValues(f.samples) === undefined;
    // A concept read from a label ("City") gives way: the first plain text of a record names it. Not a
    // bare paragraph: that is the record's text (a comment's), its name is rather the author's.
    const paragraph = (f: CandidateField) => f.tag === 'p' && f.ownHints.length === 0;
    const firstText = texts.find((f) => !roles.get(f) && plain(f) && !paragraph(f)) ?? texts.find(plain);
    // The text a record's picture is described by (a film's poster, a product's photo) names the record.
    const pictured = texts.find(
      (f) => plainish(f) && !roles.get(f) && f.coverage >= 0.8 && describesPicture(f, fields),
    );
    const title = wholeCell(heading ?? pictured ?? linkText ?? firstText, texts);
    if (title) roles.set(title, 'title');
  }
  const links = fields.filter((f) => f.kind === 'link');
  if (links.length > 1) {
    // The main link: the one around the title, else the most common one; others lose the 'link' role.
    // Any of the titles: a full name hidden in a hover box comes first, the link is around the one shown.
    const titles = [...roles].filter(([, c]) => c === 'title').map(([f]) => f);
    const around = (l: CandidateField, t: CandidateField) =>
      l.key.split('|')[0] === t.key.split('|')[0] || t.key.startsWith(l.key.split('|')[0]);
    const main =
      titles.flatMap((t) => links.filter((l) => around(l, t)))[0] ??
      [...links].sort((a, b) => b.coverage - a.coverage)[0];
    for (const l of links) if (l !== main) roles.set(l, undefined);
  }
  const title = [...roles].find(([, c]) => c === 'title')?.[0];
  if (!has('description')) {
    const long = texts
      .filter((f) => !roles.get(f) && f.averageLength > 60 && f !== title)
      .sort((a, b) => b.averageLength - a.averageLength)[0];
    if (long) roles.set(long, 'description');
  }
  const images = fields.filter((f) => f.kind === 'image');
  for (const extra of images.slice(1)) roles.set(extra, undefined);
  return roles;
}

/**
 * The text around a link that some records hold bare (a table cell linked to the shop in most rows,
 * "Zitronensaft" written plain in one): that text, in every record, rather than the link's.
 */
export function wholeCell(field: CandidateField | undefined, texts: CandidateField[]): CandidateField | undefined {
  if (!field || !inAnchor(field)) return field;
  const outer = texts.find(
    (f) =>
      f.kind === 'text' &&
      f.coverage > field.coverage &&
      field.key.startsWith(`${f.key.split('|')[0]}/`) &&
      field.present.every((i) => f.present.includes(i)) &&
      Math.abs(f.averageLength - field.averageLength) <= field.averageLength * 0.2,
  );
  return outer ?? field;
}

/** Text of an anchor, its own or a child's. */
export function inAnchor(f: CandidateField): boolean {
  return (
    f.tag === 'a' ||
    f.key
      .split('|')[0]
      .split('/')
      .some((step) => /^a(?:[.[]|$)/.test(step))
  );
}
