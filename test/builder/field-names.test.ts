// A draft names every field once, whichever step added it: the engine refuses a definition naming two
// fields alike, so a second field under a name already used takes the first free suffix.
import { describe, expect, it } from 'vitest';
import { uniqueNames } from '../../src/services/builder/inference/naming.js';

describe('field names in a draft', () => {
  it('keeps the first of a name and gives the others the first free suffix', () => {
    const fields = ['price', 'title', 'price', 'price_2', 'price'].map((name) => ({ name }));
    expect(uniqueNames(fields).map((f) => f.name)).toEqual(['price', 'title', 'price_3', 'price_2', 'price_4']);
  });

  it('leaves names used once as they are', () => {
    const fields = [{ name: 'a' }, { name: 'b' }];
    expect(uniqueNames(fields)).toEqual(fields);
  });
});
