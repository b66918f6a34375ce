// The Builder's search stays fast on large pages: what it speeds up answers as the slower way did.
import { describe, expect, it } from 'vitest';
import { parseHtml } from '../../src/engine/parse.js';
import { selectAll } from '../../src/engine/select.js';
import type { Document, Element } from '../../src/engine/select.js';
import { safeFind } from '../../src/services/builder/inference/selectors.js';

const page = (body: string) =>
  parseHtml({ body: Buffer.from(`<html><body>${body}</body></html>`), contentType: 'text/html' });

describe('position selectors', () => {
  it('find by `tag:nth-of-type(n)` exactly what the engine finds, below every element', () => {
    const links = Array.from({ length: 12 }, (_, i) => `<a href="/${i}">${i}</a><span>s${i}</span>`).join('');
    const $ = page(
      `<div id="r"><p>one</p><script>x</script>${links}<div><a href="/in">in</a><p>two</p><a>three</a></div>` +
        `<template><a>hidden</a></template><p><a>deep</a><a>deeper</a></p></div><div><p>other</p></div>`,
    );
    const root = $.root()[0] as unknown as Document;
    const elements = $('body *').toArray() as Element[];
    for (const scope of elements)
      for (const tag of ['a', 'p', 'span', 'script', 'div'])
        for (const n of [0, 1, 2, 3, 7, 12, 13])
          for (const limit of [1, 2, Infinity]) {
            const selector = `${tag}:nth-of-type(${n})`;
            expect(safeFind(scope, selector, limit)).toEqual(selectAll(scope, selector, root, limit));
          }
  });
});
