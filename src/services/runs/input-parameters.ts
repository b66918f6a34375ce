// Encrypted input parameters (docs/api-contract.md §9, six rules), shared by start, run-all and schedules.
//  1. A name prefixed with `?` has its value encrypted at rest and hidden in the Run log.
//  2. A name sent without the prefix is stored and logged in clear text, even when the Agent
//     defines that parameter as encrypted.
//  3. A parameter omitted entirely keeps the Agent's own definition, including encryption.
//  4. When both `name` and `?name` are sent, `?name` is used and the plain one discarded.
//  5. Schedules store what was sent, so clear-text values come back in clear text (schedules module).
//  6. GET /agent/{id}/input-parameters tells which parameters an Agent defines as encrypted.
import { isSealed, seal, unseal } from '../../lib/crypto.js';
import { ValidationError } from '../../lib/errors.js';

export interface AgentParameterInfo {
  name: string;
  defaultValue?: string;
  encrypted?: boolean;
}

export interface SentParameter {
  name: string;
  value: string;
  encrypted: boolean;
}

/** Parses the `inputParameters` JSON string of a request into named values (rule 4 applied). */
export function parseSentParameters(json: string | null | undefined): SentParameter[] {
  if (json === undefined || json === null || json.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new ValidationError(
      'inputParameters must be a JSON object string, e.g. {"query":"shoes","?password":"secret"}.',
    );
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ValidationError('inputParameters must be a JSON object of parameter names to values.');
  }
  const byName = new Map<string, SentParameter>();
  for (const [rawName, rawValue] of Object.entries(parsed as Record<string, unknown>)) {
    const encrypted = rawName.startsWith('?');
    const name = encrypted ? rawName.slice(1) : rawName;
    if (!name) throw new ValidationError('inputParameters has an empty parameter name.');
    if (rawValue !== null && typeof rawValue === 'object') {
      throw new ValidationError(`inputParameters.${name} must be a string, number or boolean.`);
    }
    const value = rawValue === null ? '' : `${rawValue as string | number | boolean}`;
    const prior = byName.get(name);
    // Rule 4: the `?name` entry wins over the plain one, whatever their order.
    if (prior && prior.encrypted && !encrypted) continue;
    byName.set(name, { name, value, encrypted });
  }
  return [...byName.values()];
}

export interface ResolvedParameters {
  /** Every parameter's value for this Run. */
  values: Record<string, string>;
  /** Names whose values are secret (must never appear in logs, files, errors or responses). */
  secretNames: string[];
}

/** Rules 1-3: what a Run uses, given the Agent's definition and what the request sent. */
export function resolveParameters(agentParams: AgentParameterInfo[], sent: SentParameter[]): ResolvedParameters {
  const values: Record<string, string> = {};
  const secret = new Set<string>();
  for (const p of agentParams) {
    values[p.name] = p.defaultValue ?? '';
    if (p.encrypted) secret.add(p.name);
  }
  for (const s of sent) {
    values[s.name] = s.value;
    if (s.encrypted) secret.add(s.name);
    else secret.delete(s.name); // rule 2
  }
  return { values, secretNames: [...secret] };
}

/** What is kept at rest for a Run: `?name` values sealed (AES-256-GCM), the rest as sent. */
export function sealSentParameters(key: Buffer, sent: SentParameter[]): string {
  const out: Record<string, string> = {};
  for (const s of sent) out[s.encrypted ? `?${s.name}` : s.name] = s.encrypted ? seal(key, s.value) : s.value;
  return JSON.stringify(out);
}

export function openSentParameters(key: Buffer, stored: string | null): SentParameter[] {
  if (!stored) return [];
  const parsed = JSON.parse(stored) as Record<string, string>;
  return Object.entries(parsed).map(([rawName, value]) => {
    const encrypted = rawName.startsWith('?');
    return {
      name: encrypted ? rawName.slice(1) : rawName,
      value: encrypted && isSealed(value) ? unseal(key, value) : value,
      encrypted,
    };
  });
}

/** A stored value that may be sealed (older rows hold clear text). */
export function openDefaultValue(key: Buffer, value: string | undefined): string | undefined {
  return value !== undefined && isSealed(value) ? unseal(key, value) : value;
}
