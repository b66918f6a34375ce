// Abilities the Agent Builder needs on sites it was never tuned on, found on pages of sites new to the
// tuning set, each on a small page written here (the draft is proposed without an LLM and run by the
// engine's list extraction).
import { describe, expect, it } from 'vitest';
import { extractListPage } from '../../src/engine/page-extract.js';
import { PAGE_URL } from '../helpers/draft-records.js';

describe('a page saved again as UTF-8 whose <meta> still names its old charset', () => {
  const page = `<html><head><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"></head>
    <body><h1>証明書の管理に関する脆弱性</h1><p class="date">2018/12/23</p></body></html>`;

  it('is read as UTF-8 when no header names a charset, as its bytes are valid UTF-8', () => {
    const read = extractListPage(
      { finalUrl: PAGE_URL, body: Buffer.from(page), contentType: 'text/html' },
      { list: { selector: 'body', fields: [{ name: 'title', selector: 'h1', transform: 'trim' }] } },
    );
    expect(read.items.map((i) => i.record)).toEqual([{ title: '証明書の管理に関する脆弱性' }]);
  });

  it('is read by the label a header gives', () => {
    const read = extractListPage(
      { finalUrl: PAGE_URL, body: Buffer.from(page), contentType: 'text/html; charset=Shift_JIS' },
      { list: { selector: 'body', fields: [{ name: 'title', selector: 'h1', transform: 'trim' }] } },
    );
    expect(read.items.map((i) => i.record)).not.toEqual([{ title: '証明書の管理に関する脆弱性' }]);
  });
});
