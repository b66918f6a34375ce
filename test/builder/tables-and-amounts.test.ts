// Statistics and reference tables (headers in initials, footnote marks after values) and amounts written
// in parts ("$<strong>199</strong><sup>.99</sup>"), a rating's value written as a short class, a header
// row that labels columns, two class words naming one field: on small
// pages written here (the draft is proposed without an LLM and run by the engine's list extraction).
import { describe, expect, it } from 'vitest';
import { isUnstableClass } from '../../src/services/builder/inference/selectors.js';
import { draftRecords } from '../helpers/draft-records.js';

const nav = `<nav><a href="/">Home</a> <a href="/about">About us</a> <a href="/login">Log in</a></nav>`;

describe('a statistics table whose headers are initials', () => {
  const players = [
    ['Ann Lee', 'DAL', '70', '2370'],
    ['Bo Park', 'MIL', '73', '2222'],
    ['Cy Young', 'OKC', '75', '2254'],
    ['Di Ross', 'NYK', '77', '2212'],
  ];
  const page = `<html><body>${nav}<table><thead><tr><th>Rk</th><th>Player</th><th>Tm</th><th>G</th><th>PTS</th></tr></thead>
    <tbody>${players
      .map(
        (p, i) =>
          `<tr><th scope="row">${i + 1}</th><td><a href="/p/${i}">${p[0]}</a></td><td><a href="/t/${p[1]}">${p[1]}</a></td><td>${p[2]}</td><td>${p[3]}</td></tr>`,
      )
      .join('')}</tbody></table></body></html>`;

  it('reads "games played" under G and points under PTS', async () => {
    const { records } = await draftRecords(page, 'player, team, games played and points of every player');
    expect(records.map((r) => [r.player, r.team, r.games_played, r.points])).toEqual(players);
  });
});

describe('a reference table with footnote marks', () => {
  const rows = [
    ['France', 'Paris', '68,042,591'],
    ['Germany', 'Berlin', '84,482,267'],
    ['Italy', 'Rome', '58,850,717'],
    ['Spain', 'Madrid', '48,085,361'],
  ];
  const page = `<html><body>${nav}<table class="sortable"><tbody><tr><th>Country</th><th>Capital</th><th>Population<sup><a href="#n1">[1]</a></sup></th></tr>
    ${rows
      .map(
        (r, i) =>
          `<tr><td><a href="/w/${r[0]}">${r[0]}</a></td><td><a href="/w/${r[1]}">${r[1]}</a></td><td>${r[2]}<sup><a href="#n${i + 2}">[${i + 2}]</a></sup></td></tr>`,
      )
      .join('')}</tbody></table></body></html>`;

  it('reads the values without their marks', async () => {
    const { records } = await draftRecords(page, 'country, capital and population');
    expect(records.map((r) => [r.country, r.capital, r.population])).toEqual(rows);
  });
});

describe('an amount written in parts, and a rating whose value is a class', () => {
  const products = [
    ['ASUS Prime B650 Motherboard', '199', '99', 4.5],
    ['Corsair 32GB DDR5 Memory Kit', '104', '49', 5],
    ['Samsung 990 PRO 2TB SSD', '169', '99', 4],
    ['Noctua NH-D15 CPU Cooler', '109', '95', 3.5],
  ] as const;
  const page = `<html><body>${nav}<div class="grid">${products
    .map(
      (p, i) => `<div class="cell"><a class="img" href="/p/${i}"><img src="/i/${i}.jpg" alt=""></a>
      <a class="rating r${p[3] * 10}" aria-label="rated ${p[3]} out of 5"><i></i></a><a href="/p/${i}" class="ptitle">${p[0]}</a>
      <ul class="prices"><li class="now">$<strong>${p[1]}</strong><sup>.${p[2]}</sup></li><li class="ship">Free Shipping</li></ul></div>`,
    )
    .join('')}</div></body></html>`;

  it('reads the whole amount, not its units alone, and every rating', async () => {
    const { records } = await draftRecords(page, 'product name, price and rating');
    expect(records.map((r) => [r.name, r.price, r.rating])).toEqual(
      products.map((p) => [p[0], Number(`${p[1]}.${p[2]}`), p[3]]),
    );
  });

  it('takes a short class ending in digits for a value, not a hook', () => {
    expect(isUnstableClass('r45')).toBe(true);
    expect(isUnstableClass('n-12')).toBe(true);
    expect(isUnstableClass('rating')).toBe(false);
    expect(isUnstableClass('col-md-4')).toBe(false);
  });
});

describe('a table of threads whose header row names the fields', () => {
  const threads = [
    ['Wie entkalke ich meine Kaffeemaschine?', 12, 340],
    ['Welche Mühle für Espresso?', 45, 2103],
    ['Milchschaum wird nicht fest', 8, 150],
    ['Bohnen richtig lagern', 23, 899],
  ] as const;
  const page = `<html lang="de"><body>${nav}<table class="threads"><thead><tr><th>Thema</th><th>Antworten</th><th>Aufrufe</th>
    <th>Letzter Beitrag</th></tr></thead><tbody>${threads
      .map(
        (t, i) =>
          `<tr><td class="topic"><a href="/t/${i}" class="title">${t[0]}</a><div class="starter">von <a href="/u/${i}">user${i}</a></div></td><td class="num">${t[1]}</td><td class="num">${t[2]}</td><td class="last">vor ${i + 1} Stunden</td></tr>`,
      )
      .join('')}</tbody></table></body></html>`;

  it('reads the rows, not the headers as the values of one record', async () => {
    const { records } = await draftRecords(page, 'Thema, Autor, Antworten und Aufrufe');
    expect(records).toHaveLength(threads.length);
    expect(records.map((r) => [Number(r.antworten), Number(r.aufrufe)])).toEqual(threads.map((t) => [t[1], t[2]]));
    records.forEach((r, i) => expect(String(r.thema)).toContain(threads[i][0]));
  });
});

describe('a field named by two words that are both classes of its element', () => {
  const matches = [
    ['Bayern', 'Dortmund'],
    ['Leipzig', 'Freiburg'],
    ['Köln', 'Leverkusen'],
    ['Mainz', 'Bremen'],
  ];
  const page = `<html><body>${nav}<div class="matchday"><h2>Matchday 12</h2>${matches
    .map(
      (m) =>
        `<div class="match"><span class="team home">${m[0]}</span><span class="result">1:1</span><span class="team away">${m[1]}</span></div>`,
    )
    .join('')}</div></body></html>`;

  it('reads "home team" from span.team.home', async () => {
    const { records } = await draftRecords(page, 'home team and away team of each match');
    expect(records.map((r) => r.home_team)).toEqual(matches.map((m) => m[0]));
  });
});

describe('prices written with a decimal comma', () => {
  const products = [
    ['Zapatillas Running Pro', '89,99 €', 89.99],
    ['Camiseta Técnica Dry', '24,95 €', 24.95],
    ['Mallas Compresión', '1.039,00 €', 1039],
    ['Chaqueta Cortavientos', '64,50 €', 64.5],
  ] as const;
  const page = `<html lang="es"><body>${nav}<section class="productos">${products
    .map(
      (
        p,
        i,
      ) => `<div class="producto"><a href="/p/${i}"><img src="/i/${i}.jpg" alt=""></a><h3 class="nombre"><a href="/p/${i}">${p[0]}</a></h3>
      <div class="precio"><span class="actual">${p[1]}</span></div><button>Añadir al carrito</button></div>`,
    )
    .join('')}</section></body></html>`;

  it('are read as numbers', async () => {
    const { records } = await draftRecords(page, 'nombre y precio de cada producto');
    expect(records.map((r) => [r.nombre, r.precio])).toEqual(products.map((p) => [p[0], p[2]]));
  });
});
