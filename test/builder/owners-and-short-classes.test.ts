// Prompts that name the item the fields belong to ("colour of the phone") and classes that shorten a
// field's word ("emp" for empresa, "loc" for local), a place in a box named for its address, a phone
// number inside a line of text: on small pages written here (the draft is proposed
// without an LLM and run by the engine's list extraction).
import { describe, expect, it } from 'vitest';
import { promptRequests } from '../../src/services/builder/inference/prompt-requests.js';
import { draftRecords } from '../helpers/draft-records.js';

const words = (prompt: string) => promptRequests(prompt).map((r) => r.word);

describe('the noun that owns the fields', () => {
  it('is no field when it ends the prompt after "of the" or an article in the preposition', () => {
    expect(words('name, price, storage and colour of the phone')).toEqual(['name', 'price', 'storage', 'colour']);
    expect(words('le nom et le prix du téléphone')).toEqual(['nom', 'prix']);
  });

  it('stays a field without an article, or when "and" comes before the article', () => {
    expect(words('title, author and date of publication').slice(0, 3)).toEqual(['title', 'author', 'date']);
    expect(words('Titel, Preis und das Datum')).toEqual(['titel', 'preis', 'datum']);
  });

  it('stays a request when it names a kind of record (it asks for their main text)', () => {
    expect(words('quantità e descrizione di ogni ingrediente')).toContain('ingrediente');
  });

  it('gives the one item of a detail page its fields, without a field for the item', async () => {
    const page = `<html><body><nav><a href="/">Home</a> <a href="/shop">Shop</a></nav><main>
      <div class="buy"><h1 class="pname">Nova Phone 12</h1><div class="pp"><span class="cur">€</span><span class="amount">699,00</span></div>
      <div class="opt"><span class="lbl">Storage</span><button class="sel">256 GB</button><button>512 GB</button></div>
      <div class="opt"><span class="lbl">Colour</span><button class="sel">Emerald Dusk</button><button>Silky Black</button></div></div>
      <section class="related"><h2>You may also like</h2><div class="rel"><a href="/x">Nova Phone 11</a><span>€ 499,00</span></div>
      <div class="rel"><a href="/y">Nova Pad</a><span>€ 399,00</span></div></section></main></body></html>`;
    const { proposal, records } = await draftRecords(page, 'name, price, storage and colour of the phone');
    expect(records).toEqual([{ name: 'Nova Phone 12', storage: '256 GB', colour: 'Emerald Dusk', price: 699 }]);
    expect(proposal.notes.join(' ')).not.toContain('phone');
  });
});

describe('a class that shortens the word of a field', () => {
  const jobs = [
    ['Desenvolvedor Back-end Java', 'Tech Soluções', 'São Paulo - SP', '12/03/2024'],
    ['Analista de Dados Pleno', 'DataCorp', 'Remoto', '11/03/2024'],
    ['Designer de Produto', 'Criativa', 'Rio de Janeiro - RJ', '10/03/2024'],
    ['Engenheiro de Software Sênior', 'Banco Azul', 'Belo Horizonte - MG', '09/03/2024'],
  ];
  const page = `<html lang="pt-BR"><body><nav><a href="/">Início</a> <a href="/sobre">Sobre</a></nav>
    <h1>Vagas de emprego</h1><ul class="lista">${jobs
      .map(
        (
          j,
          i,
        ) => `<li class="vaga"><a href="/vaga/${i}"><h2 class="cargo">${j[0]}</h2></a><span class="emp">${j[1]}</span>
        <div class="det"><span class="loc"><i class="ico-pin"></i> ${j[2]}</span><span class="data">Publicada em ${j[3]}</span></div></li>`,
      )
      .join('\n')}</ul></body></html>`;

  it('names the company and the place of each job ("emp", "loc")', async () => {
    const { proposal, records } = await draftRecords(page, 'título da vaga, empresa, local e data de publicação');
    expect(records).toHaveLength(jobs.length);
    // "vaga" names the records (li.vaga): the title answers it, and no note calls it missing.
    expect(proposal.notes.join(' ')).not.toContain('"vaga"');
    expect(records.map((r) => [r.titulo, r.empresa, r.local, r.data])).toEqual(jobs);
  });
});

describe('a place in a box named for its address, a phone number inside a line of text', () => {
  const flats = [
    ['Helle 3-Zimmer-Wohnung mit Balkon', 'Berlin-Pankow'],
    ['Altbau-Juwel im Szeneviertel', 'Leipzig-Südvorstadt'],
    ['Gemütliche Dachgeschosswohnung', 'Dresden-Neustadt'],
    ['Neubau mit Tiefgarage', 'München-Schwabing'],
  ];
  const listing = `<html lang="de"><body><nav><a href="/">Start</a> <a href="/neu">Neu</a></nav><div class="results">${flats
    .map(
      (f, i) =>
        `<article class="listing"><a href="/expose/${i}"><h2>${f[0]}</h2></a><div class="addr">${f[1]}</div></article>`,
    )
    .join('')}</div></body></html>`;

  it('reads "Ort" from div.addr', async () => {
    const { records } = await draftRecords(listing, 'Titel und Ort jeder Wohnung');
    expect(records.map((r) => [r.titel, r.ort])).toEqual(flats);
  });

  const people = [
    ['Dr. Anna Schmidt', 'anna@example.org', '+49 30 1234 567'],
    ['Prof. Ben Müller', 'ben@example.org', '+49 30 1234 568'],
    ['Carla Rossi', 'carla@example.org', '(030) 1234-569'],
    ['David Chen', 'david@example.org', '+49 30 1234 570'],
  ];
  const team = `<html><body><nav><a href="/">Home</a> <a href="/about">About</a></nav><h1>Our team</h1><div class="team">${people
    .map(
      (p, i) =>
        `<div class="person"><img src="/p/${i}.jpg" alt=""><h3>${p[0]}</h3><p><a href="mailto:${p[1]}">${p[1]}</a><br>Tel: ${p[2]}</p><p>Since 12/03/2019</p></div>`,
    )
    .join('')}</div></body></html>`;

  it('reads the phone number out of the line that holds it (not a date)', async () => {
    const { records } = await draftRecords(team, 'name, email and phone of every staff member');
    expect(records.map((r) => [r.name, r.email, r.phone])).toEqual(people);
  });
});
