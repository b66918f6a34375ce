// The names of the days of the week in the languages of pages and prompts, long and short ("Maandag",
// "lunes", "Mi.", "月曜日", "星期一"), from the runtime's own locale data (ICU, through Intl) rather than
// a list written here: a column of day names (opening hours, a weekly schedule) holds dates.

const LOCALES = [
  ...['en', 'de', 'fr', 'es', 'pt', 'it', 'nl', 'ja', 'zh', 'ko', 'pl', 'cs', 'sk', 'hu', 'ro', 'sv', 'da'],
  ...['nb', 'fi', 'ru', 'uk', 'bg', 'el', 'tr', 'ca', 'hr', 'sl', 'lt', 'lv', 'et', 'id', 'vi', 'fa', 'ar', 'he'],
];

/** Any Monday to Sunday, a week of days from 2024-01-01 (a Monday). */
const WEEK = Array.from({ length: 7 }, (_, i) => new Date(Date.UTC(2024, 0, 1 + i)));

const normalize = (text: string) =>
  text
    .toLowerCase()
    .replace(/[\s.:：,]+$/u, '')
    .trim();

const NAMES: ReadonlySet<string> = new Set(
  LOCALES.flatMap((locale) =>
    (['long', 'short'] as const).flatMap((weekday) => {
      const format = new Intl.DateTimeFormat(locale, { weekday, timeZone: 'UTC' });
      return WEEK.map((day) => normalize(format.format(day)));
    }),
  ).filter((name) => name.length >= 2),
);

/** A text that is a day's name alone ("Maandag:", "Mon.", "sábado", "月曜日"). */
export function isWeekdayName(text: string): boolean {
  return NAMES.has(normalize(text));
}
