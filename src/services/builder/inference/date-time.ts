// A time of day written with its date in one text ("April 28, 2019 at 6:01 am", "04.05.2015 à 13h36",
// "23. Juni 2016 um 17:21 Uhr"): when the prompt asks for a time and no field of the draft holds one,
// the date field's element gives it through a regex keeping the last time of day of the text. The date
// field is left as it is: whether a date "with its time" keeps the time is the user's to say.
import type { AgentField } from '../../../engine/definition.js';
import { conceptOfWord, isTimeWord, writtenName, type PromptRequest } from './naming.js';
import { sampleValues, type BuilderPage } from './value-form.js';

/** "6:01 am", "13h36", "17:21", "7:00PM": hours and minutes, an am/pm marker if any. */
const TIME = '\\d{1,2}(?::\\d{2}|h\\d{2})(?:\\s?[AaPp]\\.?[Mm]\\.?)?';
const HAS_TIME = new RegExp(`(?:^|\\D)${TIME}`);
/** The last time of day in the text (the greedy opening passes the earlier ones). */
const TIME_STEP = { regex: `(?:^|.*\\D)(${TIME})`, group: 1, flags: 's' };
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
  return [...fields.slice(0, at + 1), time, ...fields.slice(at + 1)];
}
