// Relative links resolve as a browser resolves them: against the document's `<base href>` when it has one.
import { describe, expect, it } from 'vitest';
import { extractDetailPage, extractListPage } from '../../src/engine/page-extract.js';

const PAGE_URL = 'http://shop.test/catalog/page1.html';

function page(head: string) {
  const body = `<!DOCTYPE html><html><head><title>t</title>${head}</head><body>
    <div class="p"><a class="t" href="item/1">One</a><img src="img/1.png"></div>
    <div class="p"><a class="t" href="/item/2">Two</a><img src="//cdn.test/2.png"></div>
    <a class="next" href="?page=2">next</a></body></html>`;
  return { finalUrl: PAGE_URL, body: Buffer.from(body), contentType: 'text/html; charset=utf-8' };
}

const plan = {
  list: {
    selector: 'div.p',
    fields: [
      { name: 'url', selector: 'a.t', attribute: 'href', transform: 'absoluteUrl' as const },
      { name: 'image', selector: 'img', attribute: 'src', transform: 'absoluteUrl' as const },
    ],
  },
  follow: { selector: 'a.t', fields: [] },
  next: { selector: 'a.next' },
};

describe('the document base URL', () => {
  for (const fast of [true, false]) {
    const parser = fast ? 'fast path' : 'parse5';
    it(`resolves fields, follow and next links against <base href> (${parser})`, () => {
      const result = extractListPage(page('<base href="https://www.example.com/shop/" target="_blank">'), plan, fast);
      expect(result.items.map((i) => i.record)).toEqual([
        { url: 'https://www.example.com/shop/item/1', image: 'https://www.example.com/shop/img/1.png' },
        { url: 'https://www.example.com/item/2', image: 'https://cdn.test/2.png' },
      ]);
      expect(result.items.map((i) => i.followUrl)).toEqual([
        'https://www.example.com/shop/item/1',
        'https://www.example.com/item/2',
      ]);
      expect(result.nextUrl).toBe('https://www.example.com/shop/?page=2');
    });

    it(`resolves a relative <base href> against the page, and ignores one that is not http(s) (${parser})`, () => {
      const relative = extractListPage(page('<base href="/other/">'), plan, fast);
      expect(relative.items[0].record.url).toBe('http://shop.test/other/item/1');
      const scripted = extractListPage(page('<base href="javascript:void(0)">'), plan, fast);
      expect(scripted.items[0].record.url).toBe('http://shop.test/catalog/item/1');
      const none = extractListPage(page('<base target="_top">'), plan, fast);
      expect(none.nextUrl).toBe('http://shop.test/catalog/page1.html?page=2');
    });

    it(`resolves a detail page's fields against its <base href> (${parser})`, () => {
      const fields = [{ name: 'url', selector: 'a.t', attribute: 'href', transform: 'absoluteUrl' as const }];
      const detail = extractDetailPage(page('<base href="https://www.example.com/shop/">'), fields, fast);
      expect(detail.record).toEqual({ url: 'https://www.example.com/shop/item/1' });
    });
  }
});
