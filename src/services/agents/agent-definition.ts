// Pure rules about the definitions an Agent's versions store: reading one from a request, telling
// structural problems (refused with 400) from semantic ones (saved, Agent marked Invalid), sizing
// it, and masking encrypted defaults wherever a definition leaves the service.
import { Value } from '@sinclair/typebox/value';
import { AgentDefinitionSchema, parametersOf, validateDefinition, type AgentDefinition } from '../../engine/definition.js';
import { SECRET_MASK } from '../../engine/secrets.js';
import { ValidationError } from '../../lib/errors.js';
import { normalizeValue } from '../../plugins/app/body-normalizer.js';

export { SECRET_MASK };

/** validationStatus values (service-spec "Agent"). */
export const ValidationStatus = { Unknown: 1, Invalid: 2, Valid: 3 } as const;

export interface CheckedDefinition {
  definition: AgentDefinition;
  validationStatus: 2 | 3;
  problems: string[];
  fileSize: number;
}

/** Bytes of the stored form of a definition (AgentVersion.fileSize). */
export function definitionSize(definition: unknown): number {
  return Buffer.byteLength(JSON.stringify(definition), 'utf8');
}

/**
 * A definition from a request body: property names are matched case-insensitively like every body
 * (design.md section 1); a definition whose shape does not match the schema is refused with every
 * problem in the message; one with semantic problems is accepted and reported Invalid.
 */
export function checkDefinitionInput(input: unknown, previous?: unknown): CheckedDefinition {
  const normalized = normalizeValue(input, AgentDefinitionSchema as never, () => undefined);
  // One problem per location: TypeBox also reports the knock-on errors of a missing property.
  const byPath = new Map<string, string>();
  for (const e of Value.Errors(AgentDefinitionSchema, normalized)) {
    const path = `definition${e.path.replace(/\//g, '.')}`;
    if (!byPath.has(path)) byPath.set(path, `${path}: ${e.message}`);
    if (byPath.size >= 20) break;
  }
  if (byPath.size > 0) throw new ValidationError(`definition is not a valid Agent definition: ${[...byPath.values()].join('; ')}`);
  const definition = previous === undefined ? (normalized as AgentDefinition) : keepMaskedSecrets(normalized as AgentDefinition, previous);
  return { definition, ...statusOf(definition), fileSize: definitionSize(definition) };
}

/** validationStatus and problems of a stored definition. */
export function statusOf(definition: unknown): { validationStatus: 2 | 3; problems: string[] } {
  const { valid, problems } = validateDefinition(definition);
  return { validationStatus: valid ? ValidationStatus.Valid : ValidationStatus.Invalid, problems };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

interface StoredParameter {
  name: string;
  defaultValue: string | null;
  encrypted: boolean;
  description: string | null;
}

/** The parameters of a stored definition, tolerating definitions saved under older rules. */
export function storedParameters(parameters: unknown): StoredParameter[] {
  if (!Array.isArray(parameters)) return [];
  const valid = parameters.filter((p): p is Record<string, unknown> & { name: string } => isObject(p) && typeof p.name === 'string');
  return parametersOf({ parameters: valid } as unknown as AgentDefinition).map((p) => ({
    ...p,
    defaultValue: typeof p.defaultValue === 'string' ? p.defaultValue : null,
    description: typeof p.description === 'string' ? p.description : null,
  }));
}

/** Agent.inputParameters: `{ name: defaultValue }`, encrypted ones masked, missing defaults "". */
export function inputParametersObject(parameters: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of storedParameters(parameters)) out[p.name] = p.encrypted ? SECRET_MASK : (p.defaultValue ?? '');
  return out;
}

/** GET .../input-parameters: encrypted defaults masked. */
export function inputParameterList(parameters: unknown): StoredParameter[] {
  return storedParameters(parameters).map((p) => ({
    ...p,
    defaultValue: p.encrypted && p.defaultValue !== null ? SECRET_MASK : p.defaultValue,
  }));
}

/** A stored definition as the API shows it: defaults of encrypted parameters masked. */
export function maskDefinition(definition: unknown): Record<string, unknown> {
  if (!isObject(definition)) return {};
  if (!Array.isArray(definition.parameters)) return definition;
  return {
    ...definition,
    parameters: definition.parameters.map((p) =>
      isObject(p) && p.encrypted === true && typeof p.defaultValue === 'string' ? { ...p, defaultValue: SECRET_MASK } : p,
    ),
  };
}

/**
 * A client that read a masked definition and sends it back must not overwrite the secret with the
 * mask: an encrypted parameter whose default is exactly the mask keeps the previous version's value.
 */
export function keepMaskedSecrets(definition: AgentDefinition, previous: unknown): AgentDefinition {
  if (!definition.parameters?.some((p) => p.encrypted && p.defaultValue === SECRET_MASK)) return definition;
  const before = new Map(storedParameters(isObject(previous) ? previous.parameters : undefined).map((p) => [p.name, p]));
  return {
    ...definition,
    parameters: definition.parameters.map((p) => {
      if (!p.encrypted || p.defaultValue !== SECRET_MASK) return p;
      const old = before.get(p.name);
      if (!old?.encrypted) return p;
      const { defaultValue: _masked, ...rest } = p;
      return old.defaultValue === null ? rest : { ...rest, defaultValue: old.defaultValue };
    }),
  };
}
