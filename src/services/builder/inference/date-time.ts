// A time of day written with its date in one text ("April 28, 2019 at 6:01 am", "04.05.2015 à 13h36",
// "23. Juni 2016 um 17:21 Uhr"): when the prompt asks for a time and no field of the draft holds one,
// the date field's element gives it through a regex keeping the last time of day of the text. The date
// field then drops the time written after its date ("30. Juli 2022 - 13:28." -> "30. Juli 2022"), as the
// prompt asked for the two apart; only when what is left is still a whole date ("Mon May 19 7:00PM" keeps
// its time: without a year it is no date the Builder can tell).
import type { AgentField } from '../../../engine/definition.js';
import { TIME_AFTER_DATE } from './date-shape.js';
import { conceptOfValues, conceptOfWord, isTimeWord } from './naming.js';
import { writtenName, type PromptRequest } from './prompt-requests.js';
import { sampleValues, type BuilderPage } from './value-form.js';

/** "6:01 am", "13h36", "17:21", "7:00PM": hours and minutes, an am/pm marker if any. */
const TIME = '\\d{1,2}(?::\\d{2}|h\\d{2})(?:\\s?[AaPp]\\.?[Mm]\\.?)?';
const HAS_TIME = new RegExp(`(?:^|\\D)${TIME}`);
/** The last time of day in the text (the greedy opening passes the earlier ones). */
const TIME_STEP = { regex: `(?:^|.*\\D)(${TIME})`, group: 1, flags: 's' };
/** The time of day ending a date's text, with what joins it to the date, for a replace step. */
const TRAILING_TIME = `${TIME_AFTER_DATE}\\s*$`;
/** Share of the sampled values that must show a time. */
const TIME_SHARE = 0.8;

/** The fields with a time-of-day field added from the date field's text, when the prompt asks for one. */
export function withTimeOfDay(
  fields: AgentField[],
  page: BuilderPage,
  listSelector: string | undefined,
  requests: PromptRequest[],
): AgentField[] {
  const request = requests.find((r) => isTimeWord(r.word));
  if (!request || listSelector === undefined) return fields;
  const name = writtenName(request);
  if (fields.some((f) => f.name === name || f.name === request.word)) return fields;
  const date = fields.find(
    (f) => !isTimeWord(f.name) && conceptOfWord(f.name.split('_')[0]) === 'date' && !f.fields && !f.multiple,
  );
  if (!date || (date.attribute && date.attribute !== 'text' && date.attribute !== 'ownText')) return fields;
  const records = page.$(listSelector).toArray().slice(0, 20);
  const values = sampleValues(page, records, date);
  if (values.length === 0 || values.filter((v) => HAS_TIME.test(v)).length < values.length * TIME_SHARE) return fields;
  const { transform: _transform, name: _name, required: _required, ...locator } = date;
  const time: AgentField = { ...locator, name, transform: [TIME_STEP] };
  const at = fields.indexOf(date);
  return [...fields.slice(0, at), withoutTime(date, values), time, ...fields.slice(at + 1)];
}

/** The date field freed of the time of day after its date, when what is left is a date in every value. */
function withoutTime(date: AgentField, values: string[]): AgentField {
  const trailing = new RegExp(TRAILING_TIME, 'i');
  const cut = values.map((v) => v.replace(/\s+/g, ' ').trim().replace(trailing, ''));
  if (cut.some((v, i) => v === values[i].replace(/\s+/g, ' ').trim()) || conceptOfValues(cut) !== 'date') return date;
  const steps = date.transform === undefined ? [] : Array.isArray(date.transform) ? date.transform : [date.transform];
  return {
    ...date,
    transform: ['trim', { replace: TRAILING_TIME, with: '', flags: 'i' }, ...steps.filter((s) => s !== 'trim')],
  };
}
