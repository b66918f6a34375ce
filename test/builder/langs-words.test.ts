// Words of prompts and labels across languages, each on a small page written here: "each one of the
// other sites" and Chinese measure words choose the records and name no field; a shop's origin,
// material and delivery time are found under the page's own labels ("Herkunft", "Material:",
// "Lieferzeit:") when a prompt in another language asks for them; a label alone in its table cell
// labels the cell after it.
import { describe, expect, it } from 'vitest';
import { fieldName } from '../../src/services/builder/inference/naming.js';
import { promptRequests } from '../../src/services/builder/inference/prompt-requests.js';
import { draftRecords } from '../helpers/draft-records.js';

const asked = (prompt: string) =>
  promptRequests(prompt).map((r) => `${r.concept ?? ''}:${fieldName(r.written ?? r.word)}`);

describe('"each one of the other" and measure words in a prompt', () => {
  it('reads "chacun des autres", "ciascuno degli altri", "cada uno de los" and "every other" as record markers', () => {
    expect(asked('nom, description et lien de chacun des autres sites')).toEqual([
      'title:nom',
      'description:description',
      'link:lien',
    ]);
    expect(asked('titolo e prezzo di ciascuno degli altri prodotti')).toEqual(['title:titolo', 'price:prezzo']);
    expect(asked('nombre y precio de cada uno de los productos')).toEqual(['title:nombre', 'price:precio']);
    expect(asked('the name and link of every other site')).toEqual(['title:name', 'link:link']);
  });

  it('reads a Chinese measure word after 每 as part of the marker, not as a field', () => {
    expect(asked('每篇文章的标题、日期和链接')).toEqual(['title:title', 'date:date', 'link:link']);
    expect(asked('每件商品的名称和价格')).toEqual(['title:title', 'price:price']);
  });
});

describe("a product's origin, material and delivery time under the page's own labels", () => {
  const page = `<html><head><title>Teekanne Porzellan - Shop</title></head><body>
    <nav><a href="/">Start</a> <a href="/tee">Tee</a></nav>
    <main><h1>Teekanne aus Porzellan, 1,2 l</h1>
      <div class="preis">Preis: 34,90 EUR</div>
      <div class="lieferung">Lieferzeit: 3 - 5 Werktage</div>
      <table class="details">
        <tr><td><strong>Herkunft</strong></td><td>Manufaktur Selb, Oberfranken</td></tr>
        <tr><td><strong>Farbe</strong></td><td>Weiß</td></tr>
      </table>
      <p>Eine schlichte Kanne für jeden Tag.</p>
      <p>Material: Hartporzellan</p>
    </main><footer>Impressum</footer></body></html>`;

  it('answers a Spanish and an Italian prompt from German labels', async () => {
    const es = await draftRecords(page, 'nombre, origen y material de la tetera');
    expect(es.records[0]).toMatchObject({ origen: 'Manufaktur Selb, Oberfranken', material: 'Hartporzellan' });
    const it = await draftRecords(page, 'nome, tempi di consegna e materiale del prodotto');
    expect(it.records[0]).toMatchObject({ tempi_di_consegna: '3 - 5 Werktage', materiale: 'Hartporzellan' });
  });

  it('reads the cell after a label alone in its cell, not the header beside a header', async () => {
    const { records } = await draftRecords(page, 'Name, Herkunft und Farbe der Teekanne');
    expect(records[0]).toMatchObject({ herkunft: 'Manufaktur Selb, Oberfranken', farbe: 'Weiß' });
  });
});

describe('a table of one row under its column headers', () => {
  it("reads each header's value in the cell below it, and a Japanese list price and release date by their words", async () => {
    const page = `<html><head><title>新製品のお知らせ</title></head><body>
      <nav><a href="/">ホーム</a> <a href="/news">ニュース</a></nav>
      <main><h1>USBハブ内蔵キーボードを発売</h1>
        <p>テンキー付きのコンパクトなキーボードです。</p>
        <table class="spec"><tr><th>製品品番</th><th>標準価格</th><th>製品画像</th></tr>
          <tr><td>SKB-HUB1BK</td><td>4,980円（税抜き 4,527円）</td><td><a href="/img/skb">画像</a></td></tr></table>
        <dl><dt>発表日</dt><dd>2022.08.10</dd></dl>
      </main><footer>会社情報</footer></body></html>`;
    const { records } = await draftRecords(page, '製品の品番、標準価格と発表日');
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ sku: 'SKB-HUB1BK', price: 4980, date: '2022.08.10' });
  });
});
