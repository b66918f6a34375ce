// Encrypted parameters' values inside a stored definition (their defaults, and their values in
// `inputs` rows) are sealed with AES-256-GCM at rest; only the worker opens them for a Run.
import { isSealed, seal, unseal } from '../../lib/crypto.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function secretNames(def: Json): Set<string> {
  const params = Array.isArray(def.parameters) ? def.parameters : [];
  return new Set(
    params
      .filter((p): p is Json => isObject(p) && p.encrypted === true && typeof p.name === 'string')
      .map((p) => p.name as string),
  );
}

function mapSecrets(definition: unknown, fn: (value: string) => string): unknown {
  if (!isObject(definition)) return definition;
  const secret = secretNames(definition);
  if (secret.size === 0) return definition;
  const out: Json = { ...definition };
  if (Array.isArray(definition.parameters)) {
    out.parameters = (definition.parameters as unknown[]).map((p) =>
      isObject(p) && p.encrypted === true && typeof p.defaultValue === 'string' && p.defaultValue !== ''
        ? { ...p, defaultValue: fn(p.defaultValue) }
        : p,
    );
  }
  if (Array.isArray(definition.inputs)) {
    out.inputs = (definition.inputs as unknown[]).map((row) =>
      isObject(row)
        ? Object.fromEntries(
            Object.entries(row).map(([k, v]) => [k, secret.has(k) && typeof v === 'string' && v !== '' ? fn(v) : v]),
          )
        : row,
    );
  }
  return out;
}

/** The definition as stored: secret values sealed (already sealed ones kept). */
export function sealDefinitionSecrets<T>(definition: T, key: Buffer): T {
  return mapSecrets(definition, (v) => (isSealed(v) ? v : seal(key, v))) as T;
}

/** The definition a Run executes: secret values opened. */
export function openDefinitionSecrets<T>(definition: T, key: Buffer): T {
  return mapSecrets(definition, (v) => (isSealed(v) ? unseal(key, v) : v)) as T;
}
