// Pure rules of the agents domain: list query parsing, LIKE escaping, definition checks and masking.
import { describe, expect, it } from 'vitest';
import {
  checkDefinitionInput,
  inputParameterList,
  inputParametersObject,
  keepMaskedSecrets,
  maskDefinition,
} from '../../src/services/agents/agent-definition.js';
import {
  containsPattern,
  parseAgentListQuery,
  parseConfigType,
  parseSortColumn,
} from '../../src/services/agents/agent-query.js';
import { ValidationError } from '../../src/lib/errors.js';

const def = {
  startUrl: 'https://example.com/?q={{q}}',
  parameters: [
    { name: 'q', defaultValue: 'x' },
    { name: 'secret', defaultValue: 'hunter2', encrypted: true },
    { name: 'bare', encrypted: true },
    { name: 'plain' },
  ],
  list: { selector: 'li', fields: [{ name: 'a' }] },
};

describe('agent list query', () => {
  it('parses sort columns case-insensitively and refuses others', () => {
    expect(parseSortColumn(undefined)).toBe('name');
    expect(parseSortColumn('')).toBe('name');
    expect(parseSortColumn('LastActivity')).toBe('lastActivity');
    expect(parseSortColumn('CONFIGTYPE')).toBe('configType');
    expect(() => parseSortColumn('id')).toThrow(ValidationError);
  });

  it('parses configType numbers and names', () => {
    expect(parseConfigType(undefined)).toBeUndefined();
    expect(parseConfigType('3')).toBe(3);
    expect(parseConfigType(' shared ')).toBe(2);
    expect(parseConfigType('SharedFile')).toBe(2);
    expect(parseConfigType('Command')).toBe(4);
    for (const bad of ['0', '5', '1.0', 'Api', '-1']) expect(() => parseConfigType(bad)).toThrow(ValidationError);
  });

  it('pages only with both parameters and clamps the page size', () => {
    expect(parseAgentListQuery({}).page).toBeNull();
    expect(parseAgentListQuery({ pageIndex: 2 }).page).toBeNull();
    expect(parseAgentListQuery({ recordsPerPage: 2 }).page).toBeNull();
    expect(parseAgentListQuery({ pageIndex: 3, recordsPerPage: 20 }).page).toEqual({ limit: 20, offset: 40 });
    expect(parseAgentListQuery({ pageIndex: 2, recordsPerPage: 5000 }).page).toEqual({ limit: 1000, offset: 1000 });
    expect(parseAgentListQuery({ sortOrder: 1 }).sort).toEqual({ column: 'name', descending: true });
    expect(parseAgentListQuery({ name: '' }).filter.name).toBeUndefined();
  });

  it('escapes LIKE wildcards', () => {
    expect(containsPattern('50%_off\\')).toBe('%50\\%\\_off\\\\%');
  });
});

describe('definitions', () => {
  it('tells structural problems (400) from semantic ones (Invalid)', () => {
    expect(() => checkDefinitionInput({ startUrl: 1 })).toThrow(
      /definition\.list: Expected required property; definition\.startUrl: Expected string/,
    );
    const invalid = checkDefinitionInput({ ...def, export: { columns: [{ name: 'zz', required: true }] } });
    expect(invalid.validationStatus).toBe(2);
    expect(invalid.problems.join()).toMatch(/zz/);
    const valid = checkDefinitionInput(def);
    expect(valid).toMatchObject({
      validationStatus: 3,
      problems: [],
      fileSize: Buffer.byteLength(JSON.stringify(def)),
    });
  });

  it('matches definition property names case-insensitively', () => {
    const { definition } = checkDefinitionInput({
      STARTURL: 'https://example.com/',
      list: { SELECTOR: 'li', fields: [{ NAME: 'a' }] },
    });
    expect(definition).toEqual({ startUrl: 'https://example.com/', list: { selector: 'li', fields: [{ name: 'a' }] } });
  });

  it('masks encrypted defaults everywhere they are shown', () => {
    expect(inputParametersObject(def.parameters)).toEqual({ q: 'x', secret: '********', bare: '********', plain: '' });
    expect(inputParameterList(def.parameters)).toEqual([
      { name: 'q', defaultValue: 'x', encrypted: false, description: null },
      { name: 'secret', defaultValue: '********', encrypted: true, description: null },
      { name: 'bare', defaultValue: null, encrypted: true, description: null },
      { name: 'plain', defaultValue: null, encrypted: false, description: null },
    ]);
    expect(JSON.stringify(maskDefinition(def))).not.toContain('hunter2');
    expect(inputParametersObject(undefined)).toEqual({});
    expect(inputParametersObject([{ nope: 1 }, 'x'])).toEqual({});
  });

  it('keeps a stored secret when the masked value comes back, and only then', () => {
    const masked = maskDefinition(def) as typeof def;
    expect(keepMaskedSecrets(masked as never, def).parameters?.[1].defaultValue).toBe('hunter2');
    // A parameter that was not encrypted before keeps what was sent.
    const before = { ...def, parameters: [{ name: 'secret', defaultValue: 'old' }] };
    expect(keepMaskedSecrets(masked as never, before).parameters?.[1].defaultValue).toBe('********');
    // A new secret value is stored as sent.
    const changed = { ...def, parameters: [{ name: 'secret', defaultValue: 'new', encrypted: true }] };
    expect(keepMaskedSecrets(changed as never, def).parameters?.[0].defaultValue).toBe('new');
  });
});

describe('secrets in inputs rows', () => {
  const withInputs = {
    ...def,
    inputs: [
      { q: 'a', secret: 'row-secret-1' },
      { q: 'b', secret: 'row-secret-2' },
    ],
  };

  it('masks encrypted parameters in inputs rows', () => {
    const masked = maskDefinition(withInputs);
    expect(masked.inputs).toEqual([
      { q: 'a', secret: '********' },
      { q: 'b', secret: '********' },
    ]);
    expect(JSON.stringify(masked)).not.toMatch(/row-secret|hunter2/);
    expect(maskDefinition({ ...withInputs, parameters: [] }).inputs).toEqual(withInputs.inputs);
  });

  it('keeps stored row values when masks come back, row by row', () => {
    const back = maskDefinition(withInputs) as typeof withInputs;
    back.inputs = [...back.inputs, { q: 'c', secret: '********' }, { q: 'd', secret: 'fresh' }] as typeof back.inputs;
    const kept = keepMaskedSecrets(back, withInputs);
    expect(kept.inputs).toEqual([
      { q: 'a', secret: 'row-secret-1' },
      { q: 'b', secret: 'row-secret-2' },
      { q: 'c', secret: '********' }, // no stored value for a new row
      { q: 'd', secret: 'fresh' },
    ]);
    expect(kept.parameters?.[1].defaultValue).toBe('hunter2');
  });
});
