// Choosing the structure a prompt asks for on pages of sites never seen, each ability on a small page
// written here: navigation named in compound class names, the one thing owning a prompt's records, a box
// around several values, a value labelled as another of its kind, a former price, a pinned list continued
// in the next box, and the reasons the session's events give for the choice.
import { describe, expect, it } from 'vitest';
import { load } from 'cheerio';
import { promptRequests } from '../../src/services/builder/inference/prompt-requests.js';
import { findCandidates } from '../../src/services/builder/inference/structure.js';
import { draftRecords } from '../helpers/draft-records.js';

const menu = (n: number) =>
  Array.from(
    { length: n },
    (_, i) => `<li class="subItem"><a class="subLink" href="/hotels/${i}">Hotels in district ${i} of the city</a></li>`,
  ).join('');

describe('navigation named in compound class names', () => {
  // A masthead's drop-down menus ("jsNavMenu", "secondSubNav") hold far more links than the page has reviews.
  const page = `<html><body><div id="HEAD" class="masthead"><ul class="tabs"><li class="tabItem jsNavMenu">
    <ul class="secondSubNav">${menu(40)}</ul></li></ul></div>
    <div id="REVIEWS">${['Great service', 'Small but excellent', 'Tasty, nice, dull', 'Overall impression']
      .map(
        (t, i) => `<div class="reviewSelector"><div class="username"><span class="scrname">user${i}</span></div>
        <div class="quote"><a href="/review/${i}">${t}</a></div><p class="entry">We had dinner here and ${t.toLowerCase()} was our verdict.</p></div>`,
      )
      .join('')}</div></body></html>`;

  it('sets the menu back and reads the reviews', async () => {
    const { records } = await draftRecords(page, 'title and text of every review');
    expect(records).toHaveLength(4);
    expect(records[0]).toMatchObject({ title: 'Great service' });
  });

  it('says why in the candidates: what they answer, their share of the text, the navigation', () => {
    const [top] = findCandidates(load(page), ['title'], ['text'], 'title and text of every review');
    expect(top.why).toMatch(/^answers \d of the \d things asked, \d+ % of the page's text/);
  });
});

describe('the one thing owning the records', () => {
  it('reads "of this recipe" as the owner, not a field', () => {
    expect(promptRequests('the ingredients of this recipe').map((r) => r.word)).toEqual(['ingredient']);
    // After "each" the kind of record is asked for: its records' main text.
    expect(promptRequests('the name of each ingredient').map((r) => r.word)).toContain('ingredient');
  });

  it('gives the ingredients of a page declaring one recipe as a list', async () => {
    const page = `<html><head><script type="application/ld+json">{"@context":"https://schema.org","@type":"Recipe",
      "name":"Cake batter cookies","recipeIngredient":["1 cup flour","1/2 teaspoon salt","1 egg"]}</script></head>
      <body><h1>Cake batter cookies</h1><div class="recipe-ingredients"><h3>Ingredients</h3><ul>
      <li>1 cup flour</li><li>1/2 teaspoon salt</li><li>1 egg</li></ul></div>
      <ol class="comments">${[
        'Lovely cookies, made them twice this week!',
        'Too sweet for me.',
        'My kids loved these cookies.',
        'Can I use oat flour instead?',
      ]
        .map((c, i) => `<li class="comment"><b class="author">reader${i}</b><p>${c}</p></li>`)
        .join('')}</ol></body></html>`;
    const { records } = await draftRecords(page, 'the ingredients of this recipe');
    expect(records.map((r) => Object.values(r)[0])).toEqual(['1 cup flour', '1/2 teaspoon salt', '1 egg']);
  });
});

describe('a box around several values names none of them', () => {
  it("reads a shop's name from its link, not as a place because of the box holding it and the address", async () => {
    const shop = (
      name: string,
      street: string,
    ) => `<div class="thumbnail"><a href="/shop/${name}"><img src="/${name}.jpg"></a>
      <div class="caption"><header class="place"><strong><a href="/shop/${name}">${name}</a></strong>
      <address>${street}, Chora, Mykonos</address></header><p class="text">A shop with clothes and shoes for the summer.</p></div></div>`;
    const page = `<html><body><div class="shops">${shop('Gant', '8 Andronikou Street')}${shop('Nike', '2 Mitropoleos Street')}
      ${shop('Louisel', 'Agiou Athanasiou Street')}</div></body></html>`;
    const { records } = await draftRecords(page, 'name and address of every shop');
    expect(records[0]).toEqual({ name: 'Gant', address: '8 Andronikou Street, Chora, Mykonos' });
  });
});

describe('a value labelled as another of its kind', () => {
  it('gives the date of each post, not its author\'s "Join Date"', async () => {
    const post = (user: string, date: string, joined: string) => `<li class="postcontainer"><div class="posthead">
      <span class="date">${date}</span></div><div class="userinfo"><a class="username" href="/u/${user}">${user}</a>
      <dl><dt>Join Date</dt><dd>${joined}</dd><dt>Posts</dt><dd>1,135</dd></dl></div>
      <blockquote class="postcontent">Pollinate the flower with a small brush, then bag it.</blockquote></li>`;
    const page = `<html><body><ol class="posts">${post('JBL', '04-09-2005, 06:46 PM', 'May 2004')}
      ${post('Est', '11-16-2005, 12:33 AM', 'Apr 2004')}${post('blokeman', '12-14-2008, 05:26 PM', 'Aug 2001')}</ol></body></html>`;
    const { records } = await draftRecords(page, 'author and date of every post');
    expect(records[0]).toEqual({ author: 'JBL', date: '04-09-2005, 06:46 PM' });
  });
});

describe('a former price beside the current one', () => {
  it('gives the current price, not the one classed as old', async () => {
    const product = (name: string, old: string, now: string) => `<div class="product"><a href="/p/${name}">${name}</a>
      <div class="prices"><span class="oldprice">${old} EUR</span> <span class="price">${now} EUR</span></div></div>`;
    const page = `<html><body><div class="list">${product('Remote control', '219.99', '179.90')}
      ${product('Brushless set', '199.99', '157.90')}${product('Wheel rims', '39.90', '36.90')}</div></body></html>`;
    const { records } = await draftRecords(page, 'name and price of every product');
    expect(records.map((r) => r.price)).toEqual([179.9, 157.9, 36.9]);
  });
});

describe('a pinned list continued in the next box', () => {
  it('reads the pinned threads and the others as one list, their state classes no part of the selector', async () => {
    const thread = (state: string, title: string, user: string) => `<li class="threadbit ${state}">
      <div class="rating0 ${state.includes('sticky') ? 'sticky' : 'nonsticky'}"><h3><a class="title" href="/t/${title.length}">${title}</a></h3>
      <div class="author"><a class="username" href="/u/${user}">${user}</a></div><ul class="stats"><li>Replies: 2</li></ul></div></li>`;
    const page = `<html><body><div id="threadlist"><ol id="stickies" class="stickies">${thread('hot lock sticky', 'Read this first', 'admin')}</ol>
      <ol id="threads" class="threads">${thread('', 'Order 3913471 cancelled', 'dam13n')}${thread('unread', 'Order 3902029', 'kundi83')}
      ${thread('hot', 'No answer from the bank', 'Deminous')}</ol></div></body></html>`;
    const { proposal, records } = await draftRecords(page, 'title and link of every thread');
    expect(records.map((r) => r.title)).toEqual([
      'Read this first',
      'Order 3913471 cancelled',
      'Order 3902029',
      'No answer from the bank',
    ]);
    expect(proposal.definition.list.selector).not.toMatch(/sticky|hot|unread/);
  });
});

describe('an attribute describing a text', () => {
  it('keeps a user name whose title repeats it with a date ("Created by Witala (15.11.2013)")', async () => {
    const thread = (
      title: string,
      user: string,
      date: string,
    ) => `<li class="thread"><h3><a class="title" href="/t/${title.length}">${title}</a></h3>
      <div class="author"><span class="label"><a class="username" href="/u/${user}" title="Created by ${user} (${date})">${user}</a> - ${date}</span></div></li>`;
    const page = `<html><body><ol class="threads">${thread('Read this first', 'Witala', '15.11.2013, 15:02')}
      ${thread('Order cancelled', 'kundi', '28.08.2014, 17:20')}${thread('No answer from the bank', 'Deminous', '21.08.2014, 17:54')}</ol></body></html>`;
    const { records } = await draftRecords(page, 'title and author of every thread');
    expect(records.map((r) => r.author)).toEqual(['Witala', 'kundi', 'Deminous']);
  });
});

describe('who did it, asked by a participle and "by"', () => {
  it('reads "started by" and "posted by" as the author, not "sorted by date"', () => {
    const asked = (prompt: string) => promptRequests(prompt).map((r) => `${r.word}:${r.concept ?? ''}`);
    expect(asked('title, started by and number of replies of each discussion')).toEqual([
      'title:title',
      'author:author',
      // A count request (count-phrase.ts), named on the page by the counted noun.
      'replies_count:comments',
    ]);
    expect(asked('posted by and date of every post')).toEqual(['author:author', 'date:date']);
    expect(asked('reviews sorted by date')).not.toContain('author:author');
  });
});

describe("a name classed by its owner and a blog's category links", () => {
  it('reads "bbp-author-name" as the author, the topic link as the title and the reply count as replies', async () => {
    const topic = (title: string, user: string, replies: number) => `<ul class="topic"><li class="bbp-topic-title">
      <a class="bbp-topic-permalink" href="/topic/${replies}">${title}</a><p class="bbp-topic-meta"><span class="bbp-topic-started-by">Started by:
      <a class="bbp-author-name" href="/users/${user}">${user}</a></span></p></li><li class="bbp-topic-reply-count">${replies}</li></ul>`;
    const page = `<html><body><div class="bbp-topics">${topic('How to add a widget to the footer', 'wmed', 8)}
      ${topic('Website blocked by the provider', 'goldenboy', 3)}${topic('Irregular traffic', 'Dika', 2)}</div></body></html>`;
    const { records } = await draftRecords(page, 'title, author and number of replies of each topic');
    expect(records[0]).toEqual({ title: 'How to add a widget to the footer', author: 'wmed', replies: 8 });
  });

  it('gives the category of each post from its rel="category tag" link, the same on every post of a category', async () => {
    const post = (title: string) => `<div class="post"><h2><a href="/${title.length}" rel="bookmark">${title}</a></h2>
      <p class="postmeta">February 8, 2010 · Filed under <a href="/category/motoblog/" rel="category tag">Motoblog</a></p>
      <p>A long enough paragraph about the meeting of the motorcycle bloggers of the city.</p></div>`;
    const page = `<html><body><div id="content">${post('Invitation to the anniversary')}${post('A new showroom opens')}
      ${post('Meet and greet with the champion')}</div></body></html>`;
    const { records } = await draftRecords(page, 'title and category of every post');
    expect(records.map((r) => r.category)).toEqual(['Motoblog', 'Motoblog', 'Motoblog']);
  });
});

describe('page sections of different contents', () => {
  it('are no records: a contact form, a map and a table of departments give way to the rows', async () => {
    const form = Array.from(
      { length: 6 },
      (_, i) => `<p><label>Veld ${i}</label><span>*</span><input name="f${i}"></p>`,
    );
    const places = Array.from(
      { length: 6 },
      (_, i) => `<p><b>Vestiging ${i}</b> <span>Straat ${i}</span> <em>${i}000 AB</em></p>`,
    );
    const departments = [
      'Algemeen',
      'Zeeland',
      'Eindhoven',
      'Rijschool',
      'Verhuur',
      'Planning',
      'Administratie',
      'Vracht',
    ];
    const rows = departments.map(
      (d) =>
        `<tr><td><p class="bodytext">${d}</p></td><td><p class="bodytext">${d.toLowerCase()}@gerwen.example</p></td></tr>`,
    );
    const about = 'Van Gerwen is uw partner voor rijopleidingen, taxivervoer en verhuur in de regio. '.repeat(12);
    const page = `<html><body><div class="content">
      <div class="csc-default"><form>${form.join('')}</form></div>
      <div class="csc-default"><p><a href="https://maps.example/?q=1">Grotere kaart weergeven</a></p>${places.join('')}</div>
      <div class="csc-default"><h2>Contact</h2><table><tbody>${rows.join('')}</tbody></table></div>
      </div><div class="footer"><p>${about}</p></div></body></html>`;
    const { proposal, records } = await draftRecords(page, 'Name und E-Mail-Adresse jeder Abteilung');
    expect(proposal.definition.list.selector).toBe('tbody > tr');
    expect(records[1]).toEqual({ name: 'Zeeland', e_mail_adresse: 'zeeland@gerwen.example' });
  });
});
