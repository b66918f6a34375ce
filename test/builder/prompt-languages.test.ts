// Prompts and pages in languages the word lists lacked (Russian, Polish, Czech, Swedish, Turkish,
// Indonesian, Korean), each on a small page written here: the concepts a prompt names, field names in
// ASCII for words of other scripts, prices written in the currencies of those languages, and titles a
// page writes inside typographic quotes.
import { describe, expect, it } from 'vitest';
import { conceptOfValues, fieldName } from '../../src/services/builder/inference/naming.js';
import { promptRequests } from '../../src/services/builder/inference/prompt-requests.js';
import { promptRecordNouns } from '../../src/services/builder/inference/topic.js';
import { draftRecords } from '../helpers/draft-records.js';

const asked = (prompt: string) =>
  promptRequests(prompt).map((r) => `${r.concept ?? ''}:${fieldName(r.written ?? r.word)}`);

describe('a prompt in a language the lists lacked', () => {
  it('reads the title, the price and the link in seven more languages, inflected forms too', () => {
    expect(asked('название, цена и ссылка каждого товара')).toEqual(['title:title', 'price:price', 'link:link']);
    expect(asked('дай мне цену и ссылку каждого объявления')).toEqual(['price:price', 'link:link']);
    expect(asked('tytuł, cena i link każdego ogłoszenia')).toEqual(['title:tytul', 'price:cena', 'link:link']);
    expect(asked('název, cena a odkaz každého inzerátu')).toEqual(['title:nazev', 'price:cena', 'link:odkaz']);
    expect(asked('titel, pris och länk för varje annons')).toEqual(['title:titel', 'price:pris', 'link:lank']);
    expect(asked('her ilanın başlık, fiyat ve bağlantısı')).toEqual(['title:baslik', 'price:fiyat', 'link:baglantisi']);
    expect(asked('judul, harga dan tautan setiap produk')).toEqual(['title:judul', 'price:harga', 'link:tautan']);
  });

  it('reads Korean nouns with their particles, and names fields of other scripts by their meaning', () => {
    expect(asked('각 상품의 제목, 가격, 링크')).toEqual(['title:title', 'price:price', 'link:link']);
    // The noun of the records is asked for as their main text, named by its English word as "each comment" is.
    expect(asked('автор и дата каждого комментария')).toEqual(['author:author', 'date:date', ':comment']);
    expect(asked('место, команда и очки каждой строки')).toEqual(['rank:rank', ':team', 'points:points']);
  });
});

describe("the records' owner in the genitive", () => {
  it('reads "the list of the recipe\'s ingredients" in Polish, Czech and Russian as asking for the ingredients', () => {
    for (const prompt of ['lista składników przepisu', 'seznam přísad receptu', 'список ингредиентов рецепта'])
      expect(promptRecordNouns(prompt), prompt).toContain('ingredient');
  });
});

describe('the place of an event', () => {
  it('reads the venue as the location, in English, German, Spanish, Japanese and Chinese', () => {
    expect(asked('name, date and venue of each event')).toEqual(['title:name', 'date:date', 'location:venue']);
    expect(asked('Titel, Datum und Veranstaltungsort')).toEqual([
      'title:titel',
      'date:datum',
      'location:veranstaltungsort',
    ]);
    expect(asked('título, fecha y recinto')).toEqual(['title:titulo', 'date:fecha', 'location:recinto']);
    expect(asked('公演名、日付、会場')).toEqual(['title:title', 'date:date', 'location:location']);
    expect(asked('演出名称、日期和场地')).toEqual(['title:title', 'date:date', 'location:location']);
  });

  it('reads a Japanese or Chinese noun ending in a word for "name" as the title, or as the concept it names', () => {
    expect(asked('選手名、チーム')).toEqual(['title:title', ':team']);
    expect(asked('店舗名、住所、電話番号')).toEqual(['title:title', 'address:address', 'phone:phone']);
    expect(asked('球员姓名和球队')).toEqual(['title:title', ':team']);
    expect(asked('会社名と勤務地')).toEqual(['company:company', 'location:location']);
  });

  it('reads a compound whose head is a word for "name" as the title, or as the concept it names', () => {
    expect(asked('Veranstaltungsname, Datum und Veranstaltungsort')).toEqual([
      'title:veranstaltungsname',
      'date:datum',
      'location:veranstaltungsort',
    ]);
    expect(asked('Firmenname, Ort und Gehalt')).toEqual(['company:firmenname', 'location:ort', 'salary:gehalt']);
    expect(asked('productnaam en prijs')).toEqual(['title:productnaam', 'price:prijs']);
    expect(asked('bedrijfsnaam en plaats')).toEqual(['company:bedrijfsnaam', 'location:plaats']);
  });
});

describe('prices in the currencies of those languages', () => {
  it('sees amounts in rubles, hryvnias, zloty, koruna, kronor, lira, rupiah and won as prices', () => {
    for (const values of [
      ['11 257 рублей', '2 750 руб.'],
      ['2 699 грн', '999 грн'],
      ['1 149 zł', '699,99 zł'],
      ['149 Kč', '1 290 Kč'],
      ['299 kr', '1 495 kr'],
      ['49,90 TL', '129 TL'],
      ['Rp 150.000', 'Rp 89.900'],
      ['₩12,000', '₩8,500'],
    ])
      expect(conceptOfValues(values)).toBe('price');
  });

  it('gives the title, the price and the link of a Russian shop asked in Russian', async () => {
    const card = (name: string, price: string, href: string) =>
      `<div class="card"><a class="card__name" href="${href}">${name}</a>
       <div class="card__cost"><span>${price}</span> <span>руб.</span></div><button>Купить</button></div>`;
    const page = `<html><body><nav><a href="/">Главная</a> <a href="/catalog">Каталог</a></nav><main>
      ${card('Чайник Bosch TWK 3A011', '1 990', '/p/1')}${card('Утюг Philips GC1433', '1 249', '/p/2')}
      ${card('Фен Rowenta CV1712', '2 350', '/p/3')}${card('Миксер Braun HM 3000', '3 100', '/p/4')}
      </main></body></html>`;
    const { records } = await draftRecords(page, 'название, цена и ссылка каждого товара');
    expect(records.slice(0, 2)).toEqual([
      { title: 'Чайник Bosch TWK 3A011', price: 1990, link: 'https://example.com/p/1' },
      { title: 'Утюг Philips GC1433', price: 1249, link: 'https://example.com/p/2' },
    ]);
    expect(records).toHaveLength(4);
  });
});

describe('titles written inside typographic quotes', () => {
  it('gives the title without the quotes around it, and keeps quotes inside a longer text', async () => {
    const item = (title: string, date: string) =>
      `<li class="event"><h3 class="event__title">${title}</h3><span class="event__date">${date}</span></li>`;
    const page = `<html><body><main><h1>Афиша</h1><ul class="events">
      ${item('«Мастер и Маргарита»', '12.11.2014')}${item('«Вишнёвый сад»', '14.11.2014')}
      ${item('Встреча с автором книги «Дозоры»', '15.11.2014')}${item('«Чайка»', '18.11.2014')}
      </ul></main></body></html>`;
    const { records } = await draftRecords(page, 'title and date of each event');
    expect(records.map((r) => r.title)).toEqual([
      'Мастер и Маргарита',
      'Вишнёвый сад',
      'Встреча с автором книги «Дозоры»',
      'Чайка',
    ]);
  });
});

describe('a prompt opening with an instruction verb', () => {
  it('does not name the first field after "collect", "extract", "get" in the prompt languages', () => {
    const asked = (prompt: string) => promptRequests(prompt).map((r) => `${r.word}:${r.concept ?? ''}`);
    expect(asked('Собери название, цену и бренд каждого смартфона').slice(0, 3)).toEqual([
      'название:title',
      'цену:price',
      'бренд:brand',
    ]);
    expect(asked('Extrahiere Name und Preis jedes Produkts')).toEqual(['name:title', 'preis:price']);
    expect(asked('Extraia o título e o preço de cada produto')).toEqual(['titulo:title', 'preco:price']);
    expect(asked('Hämta namn och pris för varje produkt')).toEqual(['namn:title', 'pris:price']);
    expect(asked('Récupère le titre et le prix de chaque produit')).toEqual(['titre:title', 'prix:price']);
  });
});
