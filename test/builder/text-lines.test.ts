// Detail pages whose values are lines of text rather than elements: a contact box of "Label: value"
// lines between line breaks, and a page laid out in tables whose title only its <title> and a line of
// text show.
import { describe, expect, it } from 'vitest';
import { draftRecords } from '../helpers/draft-records.js';

describe('values on lines of text', () => {
  it('reads each value after its label on a line of its own, and one in the element after a bare label', async () => {
    const html = `<html><head><title>Contact</title></head><body><div id="menu"><a href="/">Home</a> <a href="/c">Contact</a></div>
      <table><tr><td>Adres:&nbsp;Stationsstraat 75<br>
        <div><br>Tel:&nbsp;043-4083625<br>Fax:&nbsp;043-4081239<br>
        <div>E-mail:&nbsp;&nbsp; <a href="mailto:info@pomp.example">info@pomp.example</a></div>
        <div>KVK-nummer:&nbsp;14626903<br>Openingstijden: dagelijks</div></div></td></tr></table></body></html>`;
    const { proposal, records } = await draftRecords(
      html,
      'adres, telefoonnummer, e-mail en KvK-nummer van het bedrijf',
    );
    expect(proposal.definition.list.selector).toBe('html');
    expect(records).toEqual([
      {
        adres: 'Stationsstraat 75',
        telefoonnummer: '043-4083625',
        e_mail: 'info@pomp.example',
        kvk_nummer: '14626903',
      },
    ]);
  });

  it('reads the line opening with the label and its colon, not a longer label opening alike', async () => {
    const html = `<html><body><p>Telefonische bereikbaarheid: werkdagen<br>Tel: 010-1234567</p><h1>Bakkerij</h1></body></html>`;
    const { records } = await draftRecords(html, 'naam en telefoonnummer van de bakkerij');
    expect(records).toEqual([{ naam: 'Bakkerij', telefoonnummer: '010-1234567' }]);
  });

  it('passes over a label an earlier line opens with too', async () => {
    // The engine reads the XPath's first match: a bare "Tel:" line comes before the phone's line, so
    // the phone is read by its shape instead.
    const html = `<html><body><p>Tel:</p><p>Tel: 010-1234567</p><p>Adres: Dorpsstraat 1</p><h1>Bakkerij</h1></body></html>`;
    const { records } = await draftRecords(html, 'naam, adres en telefoonnummer van de bakkerij');
    expect(records).toEqual([{ naam: 'Bakkerij', adres: 'Dorpsstraat 1', telefoonnummer: '010-1234567' }]);
  });
});

describe("a page's title from its <title>", () => {
  it('reads the part the page shows, before the site name, when no heading or metadata holds it', async () => {
    const html = `<html><head><title>欲張りなイヌ\u3000＜福娘童話集\u3000きょうのイソップ童話＞</title></head><body>
      <table><tr><td><img src="a.jpg" alt="よくばりなイヌ"><br>欲張りなイヌ<br><br>
      <b>きょうの記念日</b><br><a href="/k">元旦</a></td></tr></table></body></html>`;
    const { proposal, records } = await draftRecords(html, 'お話のタイトル、きょうの記念日');
    expect(proposal.definition.list.fields[0]).toMatchObject({ name: 'title', selector: 'head > title' });
    expect(records[0]).toMatchObject({ title: '欲張りなイヌ' });
  });

  it('reads the part after the separator when that is the one shown', async () => {
    const html = `<html><head><title>Pomp &amp; Co | Opening of the new station</title></head><body>
      <div>Pomp &amp; Co</div><p>Opening of the new station</p><p>Some text about it that goes on.</p></body></html>`;
    const { records } = await draftRecords(html, 'the title of the news item');
    expect(records[0]).toMatchObject({ title: 'Opening of the new station' });
  });

  it('proposes no title from a <title> the page shows nowhere', async () => {
    const html = `<html><head><title>Shop | Checkout</title></head><body><p>Price: €5.00</p><p>Nothing else.</p></body></html>`;
    const { proposal } = await draftRecords(html, 'the title and the price of the page');
    expect(proposal.definition.list.fields.map((f) => f.name)).toEqual(['price']);
    expect(JSON.stringify(proposal.definition)).not.toContain('head > title');
  });
});
