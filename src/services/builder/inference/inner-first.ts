// Of two elements a page's classes name for a field, one inside the other: the inner one holds the value
// alone ("<div class="discountPrice">€ 1.599,00 <span class="discount-badge">-15%</span></div>" for "the
// discount"), the outer one the value with its neighbours.
import type { CheerioAPI } from 'cheerio';

function firstOf($: CheerioAPI, selector: string) {
  try {
    return $(selector).first();
  } catch {
    return undefined;
  }
}

/** The selectors in order, each one moved after the selectors of elements inside its first element. */
export function innerFirst($: CheerioAPI, selectors: string[]): string[] {
  const out = [...selectors];
  for (let i = 0; i < out.length; i++) {
    const outer = firstOf($, out[i]);
    if (!outer || outer.length === 0) continue;
    const inner = out.findIndex((s, j) => {
      if (j <= i) return false;
      const el = firstOf($, s)?.[0];
      return el !== undefined && el !== outer[0] && outer.find(el as never).length > 0;
    });
    if (inner > i) out.splice(i, 0, ...out.splice(inner, 1));
  }
  return out;
}
