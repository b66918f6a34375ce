// The structure readers' text of a box (subtreeText) and its length computed from its parts
// (subtreeTextLength): the two must agree on every element, whatever the whitespace between and inside
// the parts, on pages other people saved.
import fs from 'node:fs';
import { load } from 'cheerio';
import { describe, expect, it } from 'vitest';
import { loadManifest, pageFile } from '../../bench/builder-real/corpus.js';
import { DEVELOPMENT_SITES } from '../../bench/builder-real/split.js';
import { subtreeText, subtreeTextLength } from '../../src/services/builder/inference/dom-text.js';

describe('the length of a box text', () => {
  it('is its normalized text length, read from its parts, for hand-made whitespace', () => {
    const $ = load(
      '<div id="a"> <span>  x </span><b>y</b>\n<i> </i><i></i>z<!-- c --> <p>\t</p><em> w</em></div><div id="b"><i> </i><i> </i></div>',
    );
    for (const el of $('*').toArray()) expect(subtreeTextLength(el), $.html(el)).toBe(subtreeText(el).length);
    expect(subtreeText($('#a')[0])).toBe('x y z w');
  });

  it('agrees with the text on every element of real pages', () => {
    const pages = loadManifest()
      .filter((p) => p.split === 'tuning' && DEVELOPMENT_SITES.includes(p.site))
      .slice(0, 6);
    let checked = 0;
    for (const page of pages) {
      const $ = load(fs.readFileSync(pageFile(page), 'utf8'));
      for (const el of $('*').toArray()) {
        expect(subtreeTextLength(el), `${page.id} <${'name' in el ? el.name : 'node'}>`).toBe(subtreeText(el).length);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(1_000);
  });
});
