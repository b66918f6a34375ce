import { describe, expect, it } from 'vitest';
import {
  AgentDefinitionSchema,
  exportColumnsOf,
  exportFormatOf,
  parametersOf,
  resolveInputRows,
  type AgentDefinition,
} from '../../src/engine/definition.js';
import { validateDefinition } from '../../src/engine/definition-validate.js';
import { placeholdersOf, substitutePlaceholders } from '../../src/engine/template.js';
import { applyTransform, parseNumber } from '../../src/engine/extract.js';

const valid: AgentDefinition = {
  startUrl: 'https://shop.example/search?q={{q}}&page=1',
  parameters: [
    { name: 'q', defaultValue: 'shoes', description: 'search words' },
    { name: 'apiKey', defaultValue: 's3cret', encrypted: true },
  ],
  inputs: [{ q: 'boots' }, { q: 'sandals' }],
  timeoutSeconds: 600,
  list: {
    selector: 'div.product',
    fields: [
      { name: 'name', selector: 'a.title', transform: 'trim', required: true },
      { name: 'url', selector: 'a.title', attribute: 'href', transform: 'absoluteUrl' },
      { name: 'price', selector: '.price', transform: 'number' },
    ],
  },
  next: { selector: 'a.next', maxPages: 5 },
  follow: { selector: 'a.title', fields: [{ name: 'sku', selector: '.sku' }] },
  export: { format: 'ndjson', columns: [{ name: 'name', required: true }, { name: 'sku' }] },
};

describe('AgentDefinitionSchema', () => {
  it('carries a single $id, so Ajv (Fastify) accepts it although the field schema appears twice', () => {
    const ids: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (node === null || typeof node !== 'object') return;
      const id = (node as { $id?: unknown }).$id;
      if (typeof id === 'string') ids.push(id);
      Object.values(node).forEach(walk);
    };
    walk(AgentDefinitionSchema);
    expect(ids).toEqual(['AgentDefinition']);
  });

  it('has the expected ids', () => {
    expect(AgentDefinitionSchema.$id).toBe('AgentDefinition');
    expect(AgentDefinitionSchema.properties.list.title).toBe('AgentList');
    expect(AgentDefinitionSchema.properties.list.properties.fields.items.title).toBe('AgentField');
  });

  it('accepts a complete definition and a minimal one', () => {
    expect(validateDefinition(valid)).toEqual({ valid: true, problems: [] });
    expect(
      validateDefinition({ startUrl: 'http://a.example/', list: { selector: 'li', fields: [{ name: 'text' }] } }),
    ).toEqual({
      valid: true,
      problems: [],
    });
  });
});

describe('validateDefinition', () => {
  const problemsOf = (def: unknown) => validateDefinition(def).problems;

  it('reports structural problems with their paths', () => {
    const result = validateDefinition({ startUrl: 5, list: { selector: 'li', fields: [] }, extra: true });
    expect(result.valid).toBe(false);
    expect(result.problems).toContain('/startUrl: Expected string');
    expect(result.problems).toContain('/list/fields: Expected array length to be greater or equal to 1');
    expect(result.problems.some((p) => p.startsWith('/extra:'))).toBe(true);
    expect(problemsOf(null)).toEqual(['/: Expected object']);
    expect(problemsOf({ ...valid, timeoutSeconds: 0 })).toEqual([
      '/timeoutSeconds: Expected integer to be greater or equal to 1',
    ]);
    expect(problemsOf({ ...valid, export: { format: 'xml' } }).length).toBeGreaterThan(0);
    expect(
      problemsOf({ ...valid, list: { ...valid.list, fields: [{ name: 'x', transform: 'upper' }] } }).length,
    ).toBeGreaterThan(0);
  });

  it('reports a required export column that no field produces', () => {
    expect(
      problemsOf({ ...valid, export: { columns: [{ name: 'name' }, { name: 'rating', required: true }] } }),
    ).toEqual(["export column 'rating' is required but no field produces it"]);
    // Not required: allowed, it is exported empty.
    expect(problemsOf({ ...valid, export: { columns: [{ name: 'rating' }] } })).toEqual([]);
  });

  it('reports duplicate field names, also across list and follow', () => {
    expect(problemsOf({ ...valid, follow: { selector: 'a', fields: [{ name: 'price', selector: '.p' }] } })).toEqual([
      "duplicate field name 'price'",
    ]);
  });

  it('reports placeholders that name no declared parameter', () => {
    expect(problemsOf({ ...valid, startUrl: 'https://shop.example/{{ category }}?q={{q}}' })).toEqual([
      "startUrl placeholder '{{category}}' names no declared parameter",
    ]);
  });

  it('reports invalid CSS selectors where they are', () => {
    const problems = problemsOf({
      ...valid,
      next: { selector: 'a[' },
      follow: { selector: 'a', fields: [{ name: 'sku', selector: 'p::before' }] },
    });
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^next\.selector: invalid CSS selector 'a\['/);
    expect(problems[1]).toMatch(/^follow\.fields\[0\]\.selector: invalid CSS selector 'p::before'/);
  });

  it('reports a start URL that is not http(s) after substituting defaults', () => {
    expect(problemsOf({ ...valid, startUrl: 'ftp://files.example/{{q}}' })).toEqual([
      "startUrl 'ftp://files.example/shoes' is not an http(s) URL (after substituting parameter defaults)",
    ]);
    expect(
      problemsOf({
        ...valid,
        startUrl: '{{base}}/x',
        parameters: [{ name: 'base', defaultValue: 'javascript:alert(1)' }],
      }),
    ).toHaveLength(1);
    // A whole-URL parameter without default cannot be judged before the run.
    expect(problemsOf({ ...valid, startUrl: '{{base}}/x', parameters: [{ name: 'base' }] })).toEqual([]);
    expect(
      problemsOf({
        ...valid,
        startUrl: '{{base}}/x',
        parameters: [{ name: 'base', defaultValue: 'https://ok.example' }],
      }),
    ).toEqual([]);
  });

  it('reports duplicate parameters and export columns', () => {
    expect(
      problemsOf({
        ...valid,
        parameters: [{ name: 'q' }, { name: 'q' }],
        export: { columns: [{ name: 'name' }, { name: 'name' }] },
      }),
    ).toEqual(["duplicate parameter name 'q'", "duplicate export column 'name'"]);
  });
});

describe('definition helpers', () => {
  it('parametersOf makes optional properties explicit', () => {
    expect(parametersOf(valid)).toEqual([
      { name: 'q', defaultValue: 'shoes', encrypted: false, description: 'search words' },
      { name: 'apiKey', defaultValue: 's3cret', encrypted: true, description: null },
    ]);
    expect(parametersOf({ startUrl: 'http://x/', list: { selector: 'a', fields: [{ name: 'a' }] } })).toEqual([]);
  });

  it('resolveInputRows layers defaults, definition inputs and run values', () => {
    expect(resolveInputRows(valid)).toEqual([
      { q: 'boots', apiKey: 's3cret' },
      { q: 'sandals', apiKey: 's3cret' },
    ]);
    expect(resolveInputRows({ ...valid, inputs: undefined }, { apiKey: 'run-key' })).toEqual([
      { q: 'shoes', apiKey: 'run-key' },
    ]);
  });

  it('export columns default to list fields then follow fields', () => {
    expect(exportColumnsOf(valid)).toEqual(['name', 'sku']);
    expect(exportColumnsOf({ ...valid, export: undefined })).toEqual(['name', 'url', 'price', 'sku']);
    expect(exportFormatOf({ ...valid, export: undefined })).toBe('csv');
    expect(exportFormatOf(valid)).toBe('ndjson');
  });
});

describe('placeholders', () => {
  it('finds distinct names', () => {
    expect(placeholdersOf('{{a}}/x/{{ b }}?c={{a}}')).toEqual(['a', 'b']);
  });

  it('encodes values in path and query but not in the scheme and host part', () => {
    expect(
      substitutePlaceholders('{{base}}/s/{{path}}?q={{q}}', { base: 'https://x.example', path: 'a/b', q: 'a b&c=d' }),
    ).toEqual({
      text: 'https://x.example/s/a%2Fb?q=a%20b%26c%3Dd',
      missing: [],
    });
    expect(substitutePlaceholders('https://{{host}}/x?q={{q}}', { host: 'h.example' })).toEqual({
      text: 'https://h.example/x?q=',
      missing: ['q'],
    });
  });
});

describe('transforms', () => {
  it('parses numbers from display text', () => {
    expect(parseNumber('$12.50')).toBe(12.5);
    expect(parseNumber('EUR 1,234.50 incl. tax')).toBe(1234.5);
    expect(parseNumber('-3')).toBe(-3);
    expect(parseNumber('.5 kg')).toBe(0.5);
    expect(parseNumber('1 234')).toBe(1234);
    expect(parseNumber('n/a')).toBeNull();
    // The notations with a decimal comma, a thousands dot, apostrophe or space.
    expect(parseNumber('699,00 €')).toBe(699);
    expect(parseNumber('€ 1.234,50')).toBe(1234.5);
    expect(parseNumber('12,5 %')).toBe(12.5);
    expect(parseNumber("CHF 1'234.50")).toBe(1234.5);
    expect(parseNumber('1 234 567,8')).toBe(1234567.8);
    expect(parseNumber('1.234.567')).toBe(1234567);
    expect(parseNumber('0,125')).toBe(0.125);
    expect(parseNumber('Total: 3.')).toBe(3);
  });

  it('applies each transform', () => {
    expect(applyTransform('  a b  ', 'trim', 'http://x/')).toBe('a b');
    expect(applyTransform('/p?q=1', 'absoluteUrl', 'https://x.example/a/b')).toBe('https://x.example/p?q=1');
    expect(applyTransform('http://[bad', 'absoluteUrl', 'https://x.example/')).toBeNull();
    expect(applyTransform(null, 'number', 'http://x/')).toBeNull();
    expect(applyTransform(' raw ', undefined, 'http://x/')).toBe(' raw ');
  });
});

describe('browser rendering fields', () => {
  const base = { startUrl: 'http://a.example/', list: { selector: 'li', fields: [{ name: 'text' }] } };

  it('accepts render modes with their browser options', () => {
    for (const render of ['http', 'browser', 'auto'])
      expect(validateDefinition({ ...base, render }).problems).toEqual([]);
    const def = {
      ...base,
      render: 'browser',
      waitFor: 'li.item',
      scroll: 3,
      pageTimeoutSeconds: 20,
      blockResources: ['image'],
    };
    expect(validateDefinition(def)).toEqual({ valid: true, problems: [] });
    expect(validateDefinition({ ...base, render: 'auto', waitFor: 'networkidle', blockResources: [] }).valid).toBe(
      true,
    );
  });

  it('lists each problem of the browser options', () => {
    const problems = validateDefinition({ ...base, render: 'chrome', scroll: -1 }).problems;
    expect(problems.some((p) => p.startsWith('/render:'))).toBe(true);
    expect(problems.some((p) => p.startsWith('/scroll:'))).toBe(true);
    expect(validateDefinition({ ...base, render: 'browser', pageTimeoutSeconds: 301 }).problems[0]).toMatch(
      /^\/pageTimeoutSeconds:/,
    );
    expect(validateDefinition({ ...base, render: 'browser', blockResources: ['script'] }).problems[0]).toMatch(
      /^\/blockResources\/0:/,
    );
    expect(validateDefinition({ ...base, render: 'browser', waitFor: 'li[' }).problems).toEqual([
      expect.stringMatching(/^waitFor: invalid CSS selector 'li\['/),
    ]);
  });

  it('refuses browser options on an http definition', () => {
    expect(validateDefinition({ ...base, waitFor: 'li', scroll: 2 }).problems).toEqual([
      "waitFor, scroll apply only when render is 'browser' or 'auto'",
    ]);
  });
});
