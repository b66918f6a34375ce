// A word naming the records listed among the fields ("the quote, its author and tags") asks for their
// main text; tags inside each record are read as all of them; a word naming no concept reads text, not a
// link; counters are named by the word after their number. On small pages written here (the draft is
// proposed without an LLM and run by the engine's list extraction).
import { describe, expect, it } from 'vitest';
import { draftRecords } from '../helpers/draft-records.js';

const nav = `<nav><a href="/">Home</a> <a href="/about">About us</a> <a href="/login">Log in</a></nav>`;

describe('the record named among the fields', () => {
  const quotes = [
    ['“The world as we have created it is a process of our thinking.”', 'Albert Einstein'],
    ['“It is our choices that show what we truly are, far more than our abilities.”', 'J.K. Rowling'],
    ['“There are only two ways to live your life.”', 'Albert Einstein'],
    ['“A day without sunshine is like, you know, night.”', 'Steve Martin'],
  ];
  const page = `<html><body>${nav}<div class="container">${quotes
    .map(
      (q) => `<div class="q"><span class="txt">${q[0]}</span>
      <span>by <small class="author">${q[1]}</small> <a href="/author/${q[1].replace(/\W+/g, '-')}">(about)</a></span></div>`,
    )
    .join('\n')}</div></body></html>`;

  it('is read as the records’ main text beside the other fields', async () => {
    const { records } = await draftRecords(page, 'the quote and its author');
    expect(records.map((r) => [r.quote, r.author])).toEqual(quotes);
  });
});

describe('tags inside each record', () => {
  const questions = [
    ['How do I undo the most recent local commits?', ['git', 'version-control']],
    ['What does the yield keyword do?', ['python', 'generator']],
    ['How to check whether a string contains a substring?', ['javascript']],
    ['Why is processing a sorted array faster?', ['java', 'c++', 'performance']],
  ] as const;
  const page = `<html><body>${nav}<div id="questions">${questions
    .map(
      (q, i) => `<div class="summary"><div class="body"><h3><a href="/q/${i}">${q[0]}</a></h3>
      <ul class="tags">${q[1].map((t) => `<li><a class="tag" href="/t/${t}">${t}</a></li>`).join('')}</ul></div></div>`,
    )
    .join('\n')}</div></body></html>`;

  it('are every tag of the record (a class "tag", which German also reads as a day)', async () => {
    const { records } = await draftRecords(page, 'question title and tags');
    expect(records.map((r) => r.tags)).toEqual(questions.map((q) => [...q[1]]));
  });
});

describe('a word that names no concept, matched by the class around its value', () => {
  const events = [
    ['Arctic Monkeys', 'O2 Academy', 'London'],
    ['Bonobo', 'Paradiso', 'Amsterdam'],
    ['Khruangbin', 'Olympia', 'Paris'],
    ['Little Simz', 'Razzmatazz', 'Barcelona'],
  ];
  const page = `<html><body>${nav}<ol class="events">${events
    .map(
      (e, i) => `<li class="ev"><p class="artists"><a href="/a/${i}"><strong>${e[0]}</strong></a></p>
      <p class="where"><a href="/v/${i}" class="venue">${e[1]}</a>, <span class="city">${e[2]}</span></p></li>`,
    )
    .join('\n')}</ol></body></html>`;

  it('reads the text the page shows, not the link beside it', async () => {
    const { records } = await draftRecords(page, 'artist, venue and city of each concert');
    expect(records.map((r) => [r.artist, r.venue, r.city])).toEqual(events);
  });
});

describe('counters labelled after their number', () => {
  const questions = [
    ['How do I undo the most recent local commits?', 26120, 105],
    ['What does the yield keyword do?', 12989, 50],
    ['How to check whether a string contains a substring?', 7409, 3],
    ['Why is processing a sorted array faster?', 27290, 26],
  ] as const;
  const page = `<html><body>${nav}<div id="questions">${questions
    .map(
      (
        q,
        i,
      ) => `<div class="summary"><div class="stats"><div class="stat"><span class="num">${q[1]}</span><span class="unit">votes</span></div>
      <div class="stat"><span class="count">${q[2]}</span><span class="unit">answers</span></div></div>
      <div class="body"><h3><a href="/q/${i}">${q[0]}</a></h3></div></div>`,
    )
    .join('\n')}</div></body></html>`;

  it('are named by the word after the number ("26120 votes")', async () => {
    const { records } = await draftRecords(page, 'question title, votes and answers');
    expect(records.map((r) => [r.question, Number(r.votes), Number(r.answers)])).toEqual(questions.map((q) => [...q]));
  });
});
