// A page read as one record (an article, a product's or a job's own page): its fields come from the
// page's labels, metadata and main heading, else from elements classed for them, and the list selector
// is the document itself.
import type { AgentDefinition, AgentField } from '../../../engine/definition.js';
import type { Candidate } from './candidate.js';
import { inferDetailFields, type BuilderPage, type DetailRequest } from './detail.js';
import { fieldName } from './naming.js';
import { writtenName, type PromptRequest } from './prompt-requests.js';
import { spokenWord } from './missing.js';
import { ONE_RECORD_SELECTOR, pageCandidates, type pageRecordFields } from './page-record.js';
import { asksForSeveral, withMultipleValues } from './subject.js';

/** A draft and how it came about: the definition, the records considered, and notes a user can follow. */
export interface Proposal {
  definition: AgentDefinition;
  candidates: Candidate[];
  /** What the builder found and decided, in words a user can follow. */
  notes: string[];
}

export function describeFields(fields: AgentField[]): string {
  return fields.map((f) => f.name).join(', ');
}

/** How many of the fields asked for the page itself answers: by label, metadata, heading or class. */
export function pageAnswers(page: BuilderPage, record: OneRecord): number {
  if (record.missing.length === 0) return record.fields.length;
  return record.fields.length + inferDetailFields([page.$], record.missing.map(requestToDetail)).fields.length;
}

export type OneRecord = ReturnType<typeof pageRecordFields>;

/** The page as one record: the list selector is the document itself, fields are read from its root. */
export function singleRecordDraft(
  page: BuilderPage,
  candidates: Candidate[],
  record: OneRecord,
  why: string,
): Proposal {
  const notes = [`${why}: the Agent reads the page as one record.`];
  // What neither the page's own metadata nor a label gives: an element classed for it (as on detail pages).
  const more = inferDetailFields([page.$], record.missing.map(requestToDetail));
  const shown = inferDetailFields(
    [page.$],
    record.deferred.map((d) => requestToDetail(d.request)),
  ).fields;
  const own = record.fields.map((f) => shown.find((s) => s.name === f.name) ?? f);
  const considered = pageCandidates(page.$);
  const closest = considered.length > 0 ? ` Closest candidates: ${considered.join(', ')}.` : '';
  notes.push(
    ...more.missing.map(
      (r) =>
        `Field "${spokenWord(r.word)}" not found on the page: no element, label, class, meta tag or structured data (JSON-LD, microdata) holds a "${spokenWord(r.word)}".${closest}`,
    ),
  );
  // A field the prompt writes in the plural ("categorias" for "categoria") asks for several values too.
  const plural = new Set(
    [...record.missing, ...record.deferred.map((d) => d.request)]
      .filter((r) => asksForSeveral(writtenName(r)))
      .map((r) => fieldName(r.word)),
  );
  const fields = withMultipleValues(
    page.$,
    [...own, ...more.fields],
    (name) => asksForSeveral(name) || plural.has(name),
  );
  const definition: AgentDefinition = { startUrl: page.url, list: { selector: ONE_RECORD_SELECTOR, fields } };
  notes.push(`Fields: ${describeFields(fields)}.`);
  return { definition, candidates, notes };
}

export function requestToDetail(r: PromptRequest): DetailRequest {
  return {
    name: fieldName(r.word),
    concept: r.concept,
    word: r.word,
    ...(r.written !== undefined ? { written: writtenName(r) } : {}),
  };
}
