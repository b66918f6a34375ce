// A list's field naming tags, or authors or categories in the plural, whose element repeats inside the
// records (`a.tag` beside `a.tag`) is read as all of its values, not the first.
import type { CheerioAPI } from 'cheerio';
import type { AgentField } from '../../../engine/definition.js';
import { conceptOfWord, type Concept } from './naming.js';
import { asksForSeveral } from './subject.js';

/** Concepts whose values come several to a record, each a name: tags, authors, categories. */
const SEVERAL_PER_RECORD = new Set<Concept>(['tags', 'author', 'category']);

/** A field of a record asks for several values: tags, or authors and categories in the plural. */
function severalPerRecord(name: string): boolean {
  const concept = conceptOfWord(name) ?? conceptOfWord(name.replace(/s$/, ''));
  return asksForSeveral(name) && concept !== undefined && SEVERAL_PER_RECORD.has(concept);
}

/** Records read to decide (the first ones). */
const RECORDS_READ = 20;
/** Share of the records read in which the element must repeat. */
const REPEATING_SHARE = 0.3;

export function withMultipleValuesPerRecord(
  $: CheerioAPI,
  listSelector: string | undefined,
  fields: AgentField[],
): AgentField[] {
  if (!listSelector) return fields;
  let records: ReturnType<CheerioAPI>;
  try {
    records = $(listSelector).slice(0, RECORDS_READ);
  } catch {
    return fields;
  }
  if (records.length === 0) return fields;
  return fields.map((field) => {
    const selector = field.selector;
    if (!selector || selector.includes(':scope') || field.multiple || field.fields || !severalPerRecord(field.name))
      return field;
    let repeating = 0;
    try {
      records.each((_, el) => {
        if ($(el).find(selector).length >= 2) repeating++;
      });
    } catch {
      return field;
    }
    return repeating >= REPEATING_SHARE * records.length ? { ...field, multiple: true } : field;
  });
}
