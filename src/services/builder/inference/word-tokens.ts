// Words of prompts, labels and class names in any script. Latin-script words are compared without case
// or accents ("Größe" and "grosse", "Título" and "titulo" are one word). Chinese and Japanese are written
// without spaces: their runs are split at the longest words of the concept list first ("商品名", "税込価格"),
// and the rest by the ICU word segmenter of the platform (Intl.Segmenter), so that a field named by a word
// the list lacks is still one word.

/** Lower case, accents and other marks removed, "ß" as "ss". CJK text is left as it is. */
export function normalizeWord(word: string): string {
  return (
    word
      .toLowerCase()
      .normalize('NFD')
      // Accents go; the voicing marks of kana stay ("ください" is not "くたさい"): CJK is left as written.
      .replace(/(?<![\p{Script=Hiragana}\p{Script=Katakana}])\p{M}+/gu, '')
      .replace(/ß/g, 'ss')
      .replace(/æ/g, 'ae')
      .replace(/[øœ]/g, 'oe')
      .replace(/ł/g, 'l')
      // Turkish dotless i: "başlık" is written "baslik" too.
      .replace(/ı/g, 'i')
      .normalize('NFC')
  );
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー々〆ヶ]/u;

export function isCjk(text: string): boolean {
  return CJK.test(text);
}

/** Runs of letters and digits (hyphen inside a Latin word kept: "e-mail"), CJK runs apart. */
const C = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}ー々〆ヶ';
const L = `(?:(?![${C}])[\\p{L}\\p{N}])`;
const RUN = new RegExp(`[${C}]+|(?![${C}])\\p{L}${L}*(?:-${L}+)*|\\p{N}+`, 'gu');

const segmenters = new Map<string, Intl.Segmenter>();
function segmenter(locale: string): Intl.Segmenter {
  let s = segmenters.get(locale);
  if (!s) {
    s = new Intl.Segmenter(locale, { granularity: 'word' });
    segmenters.set(locale, s);
  }
  return s;
}

/**
 * A CJK run in words: the longest known words first, the stretches between them by the segmenter
 * (Japanese rules when the text has kana, Chinese otherwise). Particles stay words of their own ("の", "的").
 */
export function segmentCjk(
  run: string,
  known: ReadonlySet<string>,
  breaks: ReadonlySet<string>,
  longest: number,
  locale: 'ja' | 'zh',
): string[] {
  const out: string[] = [];
  let pending = '';
  const flush = () => {
    if (pending === '') return;
    // The segmenter's pieces between two particles are one word: "記念"+"日", "用"+"料" name one thing.
    let word = '';
    for (const s of segmenter(locale).segment(pending)) {
      if (s.segment.trim() === '') continue;
      if (breaks.has(s.segment)) {
        if (word) out.push(word);
        out.push(s.segment);
        word = '';
      } else word += s.segment;
    }
    if (word) out.push(word);
    pending = '';
  };
  let i = 0;
  while (i < run.length) {
    let match = '';
    for (let len = Math.min(longest, run.length - i); len >= 2; len--) {
      const piece = run.slice(i, i + len);
      if (known.has(piece)) {
        match = piece;
        break;
      }
    }
    if (match) {
      flush();
      out.push(match);
      i += match.length;
    } else {
      pending += run[i];
      i++;
    }
  }
  flush();
  return out;
}

/** Tokens of a text in order: normalised words, CJK words, and single punctuation marks. */
export function tokens(
  text: string,
  known: ReadonlySet<string>,
  breaks: ReadonlySet<string>,
  longest: number,
): string[] {
  const locale = /[\p{Script=Hiragana}\p{Script=Katakana}]/u.test(text) ? 'ja' : 'zh';
  const out: string[] = [];
  let last = 0;
  for (const m of text.matchAll(RUN)) {
    for (const ch of text.slice(last, m.index)) if (/[^\s]/u.test(ch)) out.push(ch);
    last = (m.index ?? 0) + m[0].length;
    if (isCjk(m[0])) out.push(...segmentCjk(m[0], known, breaks, longest, locale));
    else out.push(normalizeWord(m[0]));
  }
  for (const ch of text.slice(last)) if (/[^\s]/u.test(ch)) out.push(ch);
  return out;
}
