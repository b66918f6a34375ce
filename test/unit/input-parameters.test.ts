// Encrypted input parameters: the rules of docs/api-contract.md, and the parse errors of inputParameters.
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isSealed, seal } from '../../src/lib/crypto.js';
import { ValidationError } from '../../src/lib/errors.js';
import {
  openDefaultValue,
  openSentParameters,
  parseSentParameters,
  resolveParameters,
  sealSentParameters,
  type AgentParameterInfo,
} from '../../src/services/runs/input-parameters.js';

const key = crypto.randomBytes(32);
const agentParams: AgentParameterInfo[] = [
  { name: 'token', defaultValue: 'agent-default-secret', encrypted: true },
  { name: 'q', defaultValue: 'shoes' },
];

describe('rule 1: a `?name` value is encrypted at rest and treated as secret', () => {
  it('seals the value, opens it again, and lists the name as secret', () => {
    const sent = parseSentParameters('{"?q":"SECRET-Q-12345"}');
    expect(sent).toEqual([{ name: 'q', value: 'SECRET-Q-12345', encrypted: true }]);

    const stored = sealSentParameters(key, sent);
    expect(stored).not.toContain('SECRET-Q-12345');
    const parsed = JSON.parse(stored) as Record<string, string>;
    expect(Object.keys(parsed)).toEqual(['?q']);
    expect(isSealed(parsed['?q'])).toBe(true);
    // AES-GCM with a random IV: sealing twice never gives the same text.
    expect(sealSentParameters(key, sent)).not.toBe(stored);

    expect(openSentParameters(key, stored)).toEqual([{ name: 'q', value: 'SECRET-Q-12345', encrypted: true }]);
    // Another key cannot open it (authenticated encryption).
    expect(() => openSentParameters(crypto.randomBytes(32), stored)).toThrow();

    const resolved = resolveParameters(agentParams, openSentParameters(key, stored));
    expect(resolved.values).toEqual({ token: 'agent-default-secret', q: 'SECRET-Q-12345' });
    expect(resolved.secretNames.sort()).toEqual(['q', 'token']);
  });
});

describe('rule 2: a plain name is clear text, even when the Agent defines it as encrypted', () => {
  it('stores it as sent and does not list it as secret', () => {
    const sent = parseSentParameters('{"token":"plain-token-value"}');
    expect(sent).toEqual([{ name: 'token', value: 'plain-token-value', encrypted: false }]);
    const stored = sealSentParameters(key, sent);
    expect(JSON.parse(stored)).toEqual({ token: 'plain-token-value' });
    const resolved = resolveParameters(agentParams, openSentParameters(key, stored));
    expect(resolved.values).toEqual({ token: 'plain-token-value', q: 'shoes' });
    expect(resolved.secretNames).toEqual([]);
  });
});

describe('rule 3: an omitted parameter keeps the Agent definition, encryption included', () => {
  it('uses the default and keeps it secret', () => {
    const resolved = resolveParameters(agentParams, parseSentParameters('{"q":"boots"}'));
    expect(resolved.values).toEqual({ token: 'agent-default-secret', q: 'boots' });
    expect(resolved.secretNames).toEqual(['token']);

    const nothingSent = resolveParameters(agentParams, parseSentParameters(undefined));
    expect(nothingSent).toEqual({ values: { token: 'agent-default-secret', q: 'shoes' }, secretNames: ['token'] });
    expect(parseSentParameters(null)).toEqual([]);
    expect(parseSentParameters('   ')).toEqual([]);
    expect(parseSentParameters('{}')).toEqual([]);
    expect(sealSentParameters(key, [])).toBe('{}');
    expect(openSentParameters(key, null)).toEqual([]);
  });

  it('opens an Agent default sealed in the stored definition, and leaves a clear one alone', () => {
    expect(openDefaultValue(key, seal(key, 'agent-default-secret'))).toBe('agent-default-secret');
    expect(openDefaultValue(key, 'shoes')).toBe('shoes');
    expect(openDefaultValue(key, undefined)).toBeUndefined();
  });
});

describe('rule 4: with both `name` and `?name`, `?name` wins whatever the order', () => {
  for (const json of ['{"q":"plain-q","?q":"SECRET-Q"}', '{"?q":"SECRET-Q","q":"plain-q"}']) {
    it(json, () => {
      const sent = parseSentParameters(json);
      expect(sent).toEqual([{ name: 'q', value: 'SECRET-Q', encrypted: true }]);
      const stored = sealSentParameters(key, sent);
      expect(stored).not.toContain('SECRET-Q');
      expect(stored).not.toContain('plain-q');
      const resolved = resolveParameters(agentParams, openSentParameters(key, stored));
      expect(resolved.values.q).toBe('SECRET-Q');
      expect(resolved.secretNames.sort()).toEqual(['q', 'token']);
    });
  }

  it('applies per name: other parameters are unaffected', () => {
    const sent = parseSentParameters('{"token":"t1","?q":"s","q":"p","extra":7,"flag":true,"none":null}');
    expect(sent).toEqual([
      { name: 'token', value: 't1', encrypted: false },
      { name: 'q', value: 's', encrypted: true },
      { name: 'extra', value: '7', encrypted: false },
      { name: 'flag', value: 'true', encrypted: false },
      { name: 'none', value: '', encrypted: false },
    ]);
  });
});

describe('parse errors are ValidationError (400 VALIDATION_FAILED)', () => {
  const bad: Array<[string, RegExp]> = [
    ['not json', /JSON object string/],
    ['{"q":', /JSON object string/],
    ['[1,2]', /JSON object of parameter names/],
    ['"a string"', /JSON object of parameter names/],
    ['42', /JSON object of parameter names/],
    ['null', /JSON object of parameter names/],
    ['{"q":{"nested":1}}', /inputParameters\.q must be a string, number or boolean/],
    ['{"?q":["a"]}', /inputParameters\.q must be a string, number or boolean/],
    ['{"?":"x"}', /empty parameter name/],
    ['{"":"x"}', /empty parameter name/],
  ];
  for (const [json, message] of bad) {
    it(json, () => {
      let error: unknown;
      try {
        parseSentParameters(json);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ValidationError);
      expect(error).toMatchObject({ statusCode: 400, errorCode: 'VALIDATION_FAILED' });
      expect((error as Error).message).toMatch(message);
      // The message never echoes a value that may be a secret.
      expect((error as Error).message).not.toContain('nested');
    });
  }
});
