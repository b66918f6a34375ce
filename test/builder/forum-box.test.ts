// A side box of forum topics headed by the forum's name in the page's language ("Форум") beside a larger
// product grid: a prompt asking for forum topics in English means the box. On a small page written here
// (no LLM, run by the engine).
import { describe, expect, it } from 'vitest';
import { draftRecords } from '../helpers/draft-records.js';

const topics: Array<[string, number]> = [
  ['Какой ноутбук выбрать для учёбы до 40 тысяч', 12],
  ['Не включается видеокарта после обновления драйвера', 7],
  ['Сборка игрового компьютера: бюджет 80 тысяч', 31],
  ['Шумит блок питания под нагрузкой, что делать', 4],
  ['Стоит ли менять SSD на более быстрый', 9],
];

const products = [
  'Ноутбук Aero 15 с экраном 15,6 дюйма и 16 ГБ памяти',
  'Монитор Vista 27 дюймов, IPS, 144 Гц',
  'Клавиатура механическая Keystone с подсветкой',
  'Мышь беспроводная Glide с тихими кнопками',
  'Наушники Echo с шумоподавлением и микрофоном',
  'Веб-камера Clear HD с автофокусом',
  'Роутер Mesh Pro двухдиапазонный',
  'Внешний диск Vault 2 ТБ USB 3.0',
];

const page = `<html><body><div class="main"><h1>Хиты продаж</h1><div class="catalog">${products
  .map(
    (p, i) =>
      `<div class="item"><a href="/product/${i}"><img src="/img/${i}.jpg" alt=""></a><div class="item-name"><a href="/product/${i}">${p}</a></div><div class="item-price">${(i + 2) * 1990} руб.</div><p class="item-desc">Гарантия два года, доставка по всей стране за один день.</p></div>`,
  )
  .join(
    '',
  )}</div></div><div class="side"><div class="box"><h3><a href="/forum/">Форум</a></h3><ul class="lines">${topics
  .map(([t, n], i) => `<li><a href="/forum/thread/${i}">${t}</a> <span class="answers">${n}</span></li>`)
  .join('')}</ul></div></div></body></html>`;

describe('a box of forum topics beside a product grid', () => {
  it('is what a prompt for forum topics means', async () => {
    const { records } = await draftRecords(page, 'title and link of each forum topic');
    expect(records.map((r) => r.title)).toEqual(topics.map(([t]) => t));
  });
});
