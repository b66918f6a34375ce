// The bench's variants of the real pages whose class names say nothing (bench/builder-real/corpus.ts):
// every class name and id inside a tag is replaced, the same name by the same word, and nothing else of
// the page changes, text in comments and scripts that looks like an attribute included.
import { describe, expect, it } from 'vitest';
import { replaceClassNames } from '../../bench/builder-real/corpus.js';

const page =
  '<div class="card big" id="first"><!-- id="listing-outer-container --><p class=\'card\'>Price</p>' +
  '<script>var t = \'<i class="card">\';</script><span class="big">12</span></div>';

describe('class names replaced for the bench', () => {
  it('renames every class and id in tags alike, and leaves comments and scripts as they are', () => {
    const out = replaceClassNames(Buffer.from(page), 'renamed').toString();
    const classes = [...out.matchAll(/<(?:div|p|span) (?:class|id)=["']([^"']*)["']/g)].map((m) => m[1]);
    const [cardBig, card, big] = [classes[0], classes[1], classes[2]];
    expect(cardBig.split(' ')).toEqual([card, big]);
    expect(out).not.toMatch(/class="card big"|id="first"/);
    expect(out).toContain('<!-- id="listing-outer-container -->');
    expect(out).toContain('<script>var t = \'<i class="card">\';</script>');
    expect(out.replace(/(class|id)=(["'])[^"']*\2/g, '$1=$2$2')).toBe(
      page.replace(/(class|id)=(["'])[^"']*\2/g, '$1=$2$2'),
    );
  });

  it('gives generated-looking names when hashed', () => {
    const out = replaceClassNames(Buffer.from(page), 'hashed').toString();
    expect(out).toMatch(/^<div class="c[0-9a-f]{6} c[0-9a-f]{6}" id="c[0-9a-f]{6}">/);
  });
});
