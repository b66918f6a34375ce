// How a page's bytes become text: the header's charset first; without one, bytes that are valid
// multi-byte UTF-8 read as UTF-8 whatever a stale <meta> says (pages saved again as UTF-8 keep the <meta>
// of their old charset); else the HTML standard's sniffing, <meta> included.
import { describe, expect, it } from 'vitest';
import { extractListPage } from '../../src/engine/page-extract.js';

const PAGE_URL = 'https://example.test/page';
const titleOf = (body: Buffer, contentType: string) =>
  extractListPage(
    { finalUrl: PAGE_URL, body, contentType },
    { list: { selector: 'body', fields: [{ name: 'title', selector: 'h1', transform: 'trim' }] } },
  ).items.map((i) => i.record.title);

describe('a page saved again as UTF-8 whose <meta> still names its old charset', () => {
  const page = `<html><head><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"></head>
    <body><h1>証明書の管理に関する脆弱性</h1><p class="date">2018/12/23</p></body></html>`;

  it('is read as UTF-8 when no header names a charset, as its bytes are valid UTF-8', () => {
    expect(titleOf(Buffer.from(page), 'text/html')).toEqual(['証明書の管理に関する脆弱性']);
  });

  it('is read by the label a header gives', () => {
    expect(titleOf(Buffer.from(page), 'text/html; charset=Shift_JIS')).not.toEqual(['証明書の管理に関する脆弱性']);
  });

  it('a page in a legacy charset (bytes that are not UTF-8) is still read by its <meta>', () => {
    // "Café €" in windows-1252: é is 0xE9, € is 0x80 (neither is valid UTF-8 there).
    const body = Buffer.concat([
      Buffer.from('<html><head><meta charset="windows-1252"></head><body><h1>Caf'),
      Buffer.from([0xe9, 0x20, 0x80]),
      Buffer.from('</h1></body></html>'),
    ]);
    expect(titleOf(body, 'text/html')).toEqual(['Caf\u00e9 \u20ac']);
  });

  it('a page of ASCII only is read alike whatever its <meta>', () => {
    const body = Buffer.from('<html><head><meta charset="shift_jis"></head><body><h1>Plain title</h1></body></html>');
    expect(titleOf(body, 'text/html')).toEqual(['Plain title']);
  });
});
