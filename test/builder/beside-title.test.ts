// A second title the prompt asks for beside a person's name ("name, job title"): written after the name
// in the same element, it is that element's own text, line breaks read as spaces. On a small page
// written here (the draft is proposed without an LLM and run by the engine's list extraction).
import { describe, expect, it } from 'vitest';
import { draftRecords } from '../helpers/draft-records.js';

const people: Array<[string, string, string]> = [
  ['Ann Lee', 'President and', 'Chief Executive Officer'],
  ['Bo Chan', 'Executive Vice President', 'Chief Financial Officer'],
  ['Cy Diaz', 'Senior Vice President', 'Operations'],
  ['Di Evans', 'General Counsel', 'and Secretary'],
];

const board = `<html><body><h1>Leadership</h1><table><tbody><tr>${people
  .map(
    ([name, a, b]) =>
      `<td><p><a href="/people/${name.split(' ')[1].toLowerCase()}.html"><img src="/img/${name[0]}.jpg" alt="${name}"><strong>${name}</strong><br></a>${a}<br>${b}</p></td>`,
  )
  .join('')}</tr></tbody></table></body></html>`;

describe('a title beside the name', () => {
  it('is read as the own text of the element holding the name, its lines joined by a space', async () => {
    const { proposal, records } = await draftRecords(board, 'name, job title and profile link of each executive');
    const role = proposal.definition.list.fields.find((f) => f.name === 'title');
    expect(role?.attribute).toBe('ownText');
    expect(records.map((r) => r.name)).toEqual(people.map(([n]) => n));
    expect(records.map((r) => r.title)).toEqual(people.map(([, a, b]) => `${a} ${b}`));
  });
});
