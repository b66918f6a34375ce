// The shapes a date is written in, in the prompts' languages: "2016-12-23", "23.12.2016", "03.03.2011, 14:17",
// "Monday, February 29, 2016 @ 11:10 PM", "February 1, 2016: 12:41 PM", "14:40, Feb 17 2021", "Mon May 19
// 7:00PM" (see YEARLESS), "Tuesday 15
// October 2019", "14 Oct, 2016", "3. Mai 2020", "19 février 2020", "27 de abril de 2022", "2 days ago", "vor 2 Tagen", "1 Monat
// her", "il y a 3 jours", "2016年10月14日". A weekday before a date is part of it. Kept apart from the field
// words (naming.ts) as a date is told by its shape, wherever in a text it stands.
const ABSOLUTE =
  /\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}([/.-])\d{1,2}\1\d{2,4}\b(?:,?\s+\d{1,2}:\d{2}(?:\s*uhr\b)?)?|(?:\b\d{1,2}:\d{2},? )?(?:\b(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,? )?\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?,? \d{4}\b(?:[,:]?(?: (?:@|at|-|–|·|à|um|às|alle|om|в))? \d{1,2}:\d{2}(?: ?[ap]\.?m\.?)?(?: [a-z]{2,4}\b)?)?|(?:\b(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*,? )?\b\d{1,2}(?:er)?\.?(?: de)? (?:jan|ene|gen|feb|fév|fev|mar|mär|maa|apr|avr|abr|may|mai|mag|mei|jun|juin|giu|jul|juil|lug|aug|ago|aoû|aou|sep|set|oct|okt|out|ott|nov|dec|déc|dez|dic)[a-zà-ÿ]*\.?,?(?: de)? \d{4}\b|\b\d+ (?:minutes?|hours?|days?|weeks?|months?|years?) ago\b|\b\d{4}([/.])\d{1,2}\2\d{1,2}\b(?:\s+\d{1,2}:\d{2})?|\d{4}年\d{1,2}月\d{1,2}日(?:\s*\d{1,2}時\d{1,2}分|\s*\d{1,2}:\d{2})?/i;

/**
 * A date without its year after its weekday, as event listings write the days ahead ("Mon May 19 7:00PM",
 * "Saturday, June 1"): the weekday makes it a date. A whole value only (DATED_VALUE): not looked for inside
 * longer texts, nor in DATE_RE2 (the engine's patterns are short).
 */
const YEARLESS =
  /\b(?:mon(?:day)?|tue(?:s|sday)?|wed(?:nesday)?|thu(?:rs?|rsday)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?)\.?,? (?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?\b(?:,? \d{1,2}:\d{2}(?: ?[ap]\.?m\.?)?)?/i;

/** Dates counted back in the prompts' languages other than English ("vor 2 Tagen", "il y a 3 jours"). */
const RELATIVE =
  /\b(?:\d+ (?:minuten?|stunden?|tage?n?|wochen?|monat(?:en?)?|jahre?n?) her|vor \d+ (?:minuten?|stunden?|tage?n?|wochen?|monat(?:en?)?|jahre?n?))\b|\bil y a \d+ (?:minutes?|heures?|jours?|semaines?|mois|ans?)\b|\b(?:hace|há) \d+ (?:minutos?|horas?|d[ií]as?|semanas?|meses|m[eê]s|a[ñn]os?)\b|\b\d+ (?:minut[io]|or[ae]|giorn[io]|settiman[ae]|mes[ei]|ann[io]) fa\b|\b\d+ (?:minuten?|uur|uren|dagen?|weken?|maanden?|jaren?|jaar) geleden\b/i;

export const DATE = new RegExp(`${ABSOLUTE.source}|${RELATIVE.source}`, 'i');

/**
 * A time of day written after a date in one text, and what joins them: "30. Juli 2022 - 13:28.",
 * "3 mai 2020 à 14h05", "12/03/2021, 18:30 Uhr". A time is no date of its own, so only a value that is a
 * date followed by one is read as a date with it (see DATED_VALUE).
 */
export const TIME_AFTER_DATE =
  '\\s*(?:,|-|–|·|\\||@|at|um|à|às|a las|alle|om|kl\\.?)?\\s*\\d{1,2}(?::\\d{2}|h\\d{2})(?:\\s?[ap]\\.?m\\.?)?(?:\\s*uhr)?\\.?';

/** A value that is a date, maybe with its time of day after it ("30. Juli 2022 - 13:28."). */
export const DATED_VALUE = new RegExp(
  `(?:${ABSOLUTE.source})(?:${TIME_AFTER_DATE})?|${YEARLESS.source}|${RELATIVE.source}`,
  'i',
);

/** Longer texts are sentences that mention a date: "Monday, February 29, 2016 @ 11:10 PM UTC" is 40. */
export const DATE_MAX_LENGTH = 48;

/** Whether a text shows a date anywhere in it ("Joe Wee Monday, February 29, 2016"). */
export function showsDate(text: string): boolean {
  return DATE.test(text);
}

/** The text before the first date a text shows, the date, and the text after it; undefined without one. */
export function aroundDate(text: string): { before: string; date: string; after: string } | undefined {
  const m = DATE.exec(text);
  return m ? { before: text.slice(0, m.index), date: m[0], after: text.slice(m.index + m[0].length) } : undefined;
}

/**
 * The absolute dates of DATE for the engine's RE2 regex steps: its repeated separators matched again as a
 * class (RE2 has no backreferences). Counted-back dates are left out: an engine pattern is at most 1000
 * characters.
 */
export const DATE_RE2 = ABSOLUTE.source
  .replace('([/.-])', '[/.-]')
  .replace('\\1', '[/.-]')
  .replace('([/.])', '[/.]')
  .replace('\\2', '[/.]');
