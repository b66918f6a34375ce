// Fields whose classes say nothing (made-up words, as a site's own vocabulary or another language gives
// them): found by what their values look like and what stands beside them. On small pages written here
// (the draft is proposed without an LLM and run by the engine's list extraction).
import { describe, expect, it } from 'vitest';
import { draftRecords } from '../helpers/draft-records.js';

describe('a rating nothing names', () => {
  const review = (who: string, score: string) =>
    `<div class="kovira"><h3 class="tubela">${who} wrote</h3><span class="zamelo">${score}</span><p class="rusipa">Nice place, good food and a view of the sea.</p></div>`;
  const page = `<html><body><div class="mefani">${[
    ['Ann', '7,7'],
    ['Bo', '8.0'],
    ['Cy', '6.5'],
    ['Di', '9'],
  ]
    .map(([w, s]) => review(w, s))
    .join('')}</div></body></html>`;

  it('is read as a number, as a rating the markup names is', async () => {
    const { proposal, records } = await draftRecords(page, 'title and rating of each review');
    expect(proposal.definition.list.fields.find((f) => f.name === 'rating')?.transform).toBe('number');
    expect(records.map((r) => r.rating)).toEqual([7.7, 8, 6.5, 9]);
  });
});

describe('a duration nothing names', () => {
  const episode = (title: string, length: string, date: string) =>
    `<a class="fomiki" href="/e/${title.length}"><span class="deveme">${length}</span><span class="dekine">${title}</span><span class="debira">${date}</span></a>`;
  const page = `<html><body><div class="lunopa">${[
    episode('Talking with your family', '31:34', 'Dec 09, 2021'),
    episode('Spiking and what to do', '26:44', 'Nov 25, 2021'),
    episode('Maternal drinking', '1:04:07', 'Nov 11, 2021'),
  ].join('')}</div></body></html>`;

  it('is the text written as minutes and seconds', async () => {
    const { records } = await draftRecords(page, 'title, duration and publish date of each episode');
    expect(records.map((r) => r.duration)).toEqual(['31:34', '26:44', '1:04:07']);
  });
});

describe("a commenter's name beside their avatar", () => {
  const comment = (who: string, text: string, avatar: string) =>
    `<div class="paleni"><img class="bureze" src="${avatar}" alt="${who}" width="48" height="48"><div class="fonimi"><div class="videde">${who}</div></div><div class="tesaro"><p>${text}</p></div><div class="lovake">2 days ago</div></div>`;
  const comments = (avatar: (i: number) => string) =>
    `<html><body><div class="sivema">${[
      ['Bibi Blue', 'Thanks for the thoughts and the kind wishes for the new year.'],
      ['Nossi', 'I remember those days well, and not everything was better then.'],
      ['Sylvia', 'We should be more careful with what we build and what we throw away.'],
    ]
      .map(([w, t], i) => comment(w, t, avatar(i)))
      .join('')}</div></body></html>`;

  it('is the text the avatar is described by', async () => {
    const { records } = await draftRecords(
      comments((i) => `/avatars/${i}.png`),
      'author and date of every comment',
    );
    expect(records.map((r) => r.author)).toEqual(['Bibi Blue', 'Nossi', 'Sylvia']);
  });

  it('is found beside a default avatar the same in every comment', async () => {
    const { records } = await draftRecords(
      comments(() => '/avatars/default.png'),
      'author and date of every comment',
    );
    expect(records.map((r) => r.author)).toEqual(['Bibi Blue', 'Nossi', 'Sylvia']);
  });
});

describe('an event date without its year', () => {
  const show = (name: string, date: string, venue: string) =>
    `<tr class="dazamu"><td class="gozeku"><a href="/events/${name.length}">${name}</a></td><td class="tuzube">${date}</td><td class="lekula">${venue}</td></tr>`;
  const page = `<html><body><table><tbody>${[
    show('Murder For Two', 'Mon May 19 <br> 7:00PM', 'New World Stages'),
    show('Don Quixote', 'Tue May 20 <br> 7:30PM', 'Opera House'),
    show('Wicked', 'Wed May 21 <br> 8:00PM', 'Gershwin Theatre'),
  ].join('')}</tbody></table></body></html>`;

  it('is a date by its weekday', async () => {
    const { records } = await draftRecords(page, 'each show: event name, date and the tickets link');
    expect(records.map((r) => String(r.date).replace(/\s+/g, ' '))).toEqual([
      'Mon May 19 7:00PM',
      'Tue May 20 7:30PM',
      'Wed May 21 8:00PM',
    ]);
  });
});

describe('a place heading a card whose title is another text', () => {
  const flat = (place: string, price: string) =>
    `<div class="pasese"><a class="gegizo" href="/offer/${price.replace(/\D/g, '')}"><img class="pabise" src="/i/${price.length}.jpg"></a><h2 class="lemeli">${place}</h2><p class="ratedu" itemprop="name">Flat for sale, added today</p><p class="nugito">${price}</p></div>`;
  const page = `<html><body><div class="rovena">${[
    flat('Kraków, Mistrzejowice', '394 654 zł'),
    flat('Kraków, Grzegórzki', '354 224 zł'),
    flat('Bytom, Szombierki', '162 000 zł'),
  ].join('')}</div></body></html>`;

  it('is the place asked for', async () => {
    const { records } = await draftRecords(page, 'location, price and link of each flat');
    expect(records.map((r) => r.location)).toEqual([
      'Kraków, Mistrzejowice',
      'Kraków, Grzegórzki',
      'Bytom, Szombierki',
    ]);
  });
});

describe('a rating icon classed by its value', () => {
  // Every icon shares a class; a second one says the value ("stars-4" renamed to a made-up word).
  const levels = ['zomira', 'fekalu', 'pirosa', 'lunado', 'gatemi'];
  const review = (who: string, stars: number) =>
    `<div class="teleta"><a class="dikalo" href="/user_details?userid=${who}">${who}</a><div class="rusofo"><i class="${levels[stars - 1]} pilonu" title="${stars}.0 star rating"></i></div><span class="begati">7/${stars}/2014</span><p class="buvepi">We went there for dinner with friends and liked it.</p></div>`;
  const page = `<html><body><div class="lumena">${[5, 3, 5, 4, 2, 5, 1, 4, 5, 3]
    .map((s, i) => review(`user${i}`, s))
    .join('')}</div></body></html>`;

  it('is one field across the value classes', async () => {
    const { records } = await draftRecords(page, 'the reviews: reviewer name, star rating and date');
    expect(records.map((r) => r.rating)).toEqual([5, 3, 5, 4, 2, 5, 1, 4, 5, 3]);
  });
});

describe("a film's name its poster is described by", () => {
  const film = (rank: number, name: string, other: string, score: string) =>
    `<div class="fatora"><div class="rupiru"><em>${rank}</em><a href="/subject/${rank}/"><img width="100" alt="${name}" src="/p/${rank}.jpg"></a></div><div class="lusomu"><div class="vonumi"><a href="/subject/${rank}/"><span class="kudota">${name}</span><span class="vofupo"> / ${other} / ${other} (HK)</span></a></div><div class="pidani"><span class="dozuba">${score}</span><span>1000 votes</span></div></div></div>`;
  const page = `<html><body><ol class="zebuna">${[
    film(1, 'Intouchables', 'Untouchable Friends', '9.3'),
    film(2, 'The Last Emperor', 'Emperor of China', '9.1'),
    film(3, 'Coco', 'Land of the Dead', '9.0'),
  ].join('')}</ol></body></html>`;

  it('is its title', async () => {
    const { records } = await draftRecords(page, 'title and rating of each film');
    expect(records.map((r) => r.title)).toEqual(['Intouchables', 'The Last Emperor', 'Coco']);
  });
});

describe('a list the page heads in its own language', () => {
  const page = `<html><body><h1>Macaroni met kaas</h1><div id="nopuse"><h2>Ingrediënten</h2><ul>${[
    '300 g macaroni',
    '1 ui, fijngesnipperd',
    '1 teen knoflook, uitgeperst',
    '200 g geraspte kaas',
  ]
    .map((i) => `<li>${i}</li>`)
    .join('')}</ul></div><div><h2>Bereiding</h2><p>Kook de macaroni en meng alles.</p></div></body></html>`;

  it('names the records text in English, as concepts are named', async () => {
    const { proposal } = await draftRecords(page, 'elenca gli ingredienti');
    expect(proposal.definition.list.fields.map((f) => f.name)).toEqual(['ingredient']);
  });
});

describe('a value linked in some records, plain in the others, one class on both', () => {
  const item = (name: string, amount: string, linked: boolean) =>
    `<li class="zebira">${linked ? `<a href="/categories/${name.length}" class="ziseda">${name}</a>` : `<span class="ziseda">${name}</span>`}<span class="gilero">${amount}</span></li>`;
  const page = `<html><body><h2>材料</h2><ul class="kibalu">${[
    ['ベーコン', '2枚', true],
    ['ごぼう', '80g', true],
    ['有塩バター', '10g', false],
    ['薄力粉', '大さじ1', false],
    ['玉ねぎ', '1/4個', true],
  ]
    .map(([n, a, l]) => item(n as string, a as string, l as boolean))
    .join('')}</ul></body></html>`;

  it('is one field', async () => {
    const { records } = await draftRecords(page, '材料の名前と分量');
    expect(records.map((r) => r.title)).toEqual(['ベーコン', 'ごぼう', '有塩バター', '薄力粉', '玉ねぎ']);
  });
});

describe("a record's name in the link its photo shares", () => {
  const obituary = (id: number, name: string, extra: string) =>
    `<div class="zekagi"><div class="gomevu"><a href="/obituary.aspx?pid=${id}">${name}</a></div><div class="pudedi"><a href="/obituary.aspx?pid=${id}"><img src="/p/${id}.jpg"></a><div class="genodo">${extra}</div><a class="buzati" href="/guestbook/${id}">Share memories and condolences with the family <span>${id * 5 + 1}</span></a></div></div>`;
  const page = `<html><body><div class="lorema">${[
    obituary(
      1,
      'Erma Silipigni (1937 - 2017)',
      '... moved to Fresno in 1958 to pursue a life of freedom and worked in insurance ...',
    ),
    obituary(
      2,
      'Jimmy Pagan Sr. (1964 - 2017)',
      '... born in Puerto Rico, he loved his family and his work at the port ...',
    ),
    obituary(3, 'Luigi Abenante M.D.', '... a doctor for forty years in the town he grew up in, known to all ...'),
  ].join('')}</div></body></html>`;

  it('is its name, and that link its link', async () => {
    const { records } = await draftRecords(page, 'name and link of each obituary');
    expect(records.map((r) => r.name)).toEqual([
      'Erma Silipigni (1937 - 2017)',
      'Jimmy Pagan Sr. (1964 - 2017)',
      'Luigi Abenante M.D.',
    ]);
    expect(records.map((r) => r.link)).toEqual([1, 2, 3].map((i) => `https://example.com/obituary.aspx?pid=${i}`));
  });
});

describe('a unit nothing names', () => {
  const item = (amount: string, unit: string, name: string) =>
    `<li class="kozafu"><span class="figozu">${amount}</span> <span class="zubako">${unit}</span> <span class="zebira">${name}</span></li>`;
  const page = `<html><body><h2>Ingrediënten</h2><ul class="pemola">${[
    ['500', 'gr', 'bloem'],
    ['500', 'ml', 'plantaardige melk'],
    ['7', 'gr', 'gedroogde gist'],
    ['2', 'el', 'suiker'],
  ]
    .map(([a, u, n]) => item(a, u, n))
    .join('')}</ul></body></html>`;

  it('is the short word alone in its element', async () => {
    const { records } = await draftRecords(page, 'hoeveelheid, eenheid en naam van elk ingrediënt');
    expect(records.map((r) => r.eenheid)).toEqual(['gr', 'ml', 'gr', 'el']);
  });
});

describe('an address written as places alone', () => {
  const house = (id: number, place: string, price: string) =>
    `<li class="kulipu"><a class="pinega" href="/expose/${id}"><h5 class="poneve">Family house, ${price.length > 9 ? 'large' : 'small'} garden</h5></a><button class="bekabu">${place}</button><dl><dd>${price}</dd><dt>Kaufpreis</dt></dl></li>`;
  const page = `<html><body><ul class="ruvane">${[
    house(1, 'Emmerzhausen, Altenkirchen (Westerwald) (Kreis)', '419.000 €'),
    house(2, 'Windeck, Rhein-Sieg-Kreis', '499.000 €'),
    house(3, 'Reichshof, Oberbergischer Kreis', '265.000 €'),
  ].join('')}</ul></body></html>`;

  it('is the address', async () => {
    const { records } = await draftRecords(page, 'Adresse und Kaufpreis jedes Hauses');
    expect(records.map((r) => r.adresse)).toEqual([
      'Emmerzhausen, Altenkirchen (Westerwald) (Kreis)',
      'Windeck, Rhein-Sieg-Kreis',
      'Reichshof, Oberbergischer Kreis',
    ]);
  });
});

describe('a former price its label names', () => {
  const product = (name: string, old: string, now: string) =>
    `<div class="rizata"><a class="tivego" href="/p/${name.length}"><span class="begelo">${name}</span></a><div class="sodufi"><span class="vonalo">Unser alter Preis: </span><span class="buzoso">${old}</span><br><span class="fodese">Sonderangebot: </span><span class="kabito">${now}</span></div></div>`;
  const page = `<html><body><div class="lemuna">${[
    product('X-8N Fernsteuerung', '219,99 EUR', '179,90 EUR'),
    product('Genius Race II 80R', '199,99 EUR', '157,90 EUR'),
    product('Genius Race II 13R', '199,99 EUR', '159,90 EUR'),
  ].join('')}</div></body></html>`;

  it('is not the price', async () => {
    const { records } = await draftRecords(page, 'Name und Preis jedes Produkts');
    expect(records.map((r) => r.preis)).toEqual([179.9, 157.9, 159.9]);
  });
});
