// How prices write their currency, in one place for every pattern that looks for a price: a sign before
// or after the amount ("$5", "5 €", "₽ 990", "₩12,000"), a code ("EUR", "PLN", "CZK"), or a short word
// after it in the page's language: "руб." and "р." (Russian), "грн" (Ukrainian), "zł" (Polish), "Kč"
// (Czech), "kr" (Nordic), "TL" (Turkish), "Ft" (Hungarian), "lei" (Romanian), "원" (Korean); Indonesian
// writes "Rp" before it. Amounts may group thousands by spaces ("11 257 рублей"). The patterns are
// RE2's as well as JavaScript's (the engine applies some of them), so they use no look-around.

/** Signs written before or after an amount. */
export const CURRENCY_SIGNS = '[$€£¥₹₽₺₩₴]';

/** Codes and words written after an amount (matched without case). */
export const CURRENCY_AFTER =
  '(?:€|£|₽|₺|₩|₴|usd|eur|gbp|chf|jpy|cad|aud|nzd|hkd|sgd|cny|inr|brl|mxn|zar|ils|aed|pln|czk|sek|nok|dkk|rub|uah|try|huf|ron|idr|krw|kr|kč|zł|tl|ft|lei|[рp]уб\\p{L}*\\.?|р\\.|грн\\.?|원)';

/** Codes and words written before an amount. */
export const CURRENCY_BEFORE = `(?:${CURRENCY_SIGNS}|usd|eur|gbp|chf|cad|aud|nzd|hkd|sgd|cny|inr|brl|mxn|zar|ils|aed|rp\\.?)`;

/** An amount: digits with decimal marks, thousands grouped by dots, commas or spaces ("1 149", "1.234,50"). */
export const AMOUNT = '\\d[\\d.,]*(?:[ \u00A0]\\d{3})*(?:[.,]\\d+)?';
