// Pure rules about the definitions an Agent's versions store: reading one from a request, telling
// structural problems (refused with 400) from semantic ones (saved, Agent marked Invalid), sizing
// it, and masking encrypted defaults wherever a definition leaves the service.
import { Value } from '@sinclair/typebox/value';
import { criteriaProblems } from '../../engine/definition-criteria.js';
import { keyProblems } from '../../engine/definition-changes.js';
import { languageProblems, missingLocators, nestingProblems } from '../../engine/definition-language.js';
import { requestProblems } from '../../engine/definition-requests.js';
import { AgentDefinitionSchema, parametersOf, type AgentDefinition } from '../../engine/definition.js';
import { validateDefinition } from '../../engine/definition-validate.js';
import { SECRET_MASK } from '../../engine/secrets.js';
import { ValidationError } from '../../lib/errors.js';
import { normalizeValue } from '../../schemas/normalize.js';

export { SECRET_MASK };

/** validationStatus values (docs/api-contract.md §3.3). */
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
 * (docs/api-contract.md §1.1); a definition whose shape does not match the schema is refused with every
 * problem in the message, and so is one whose extraction language does not compile (an XPath, JSONPath or
 * regular expression, a date format, fields nested too deep: `languageProblems`); one with other semantic
 * problems is accepted and reported Invalid.
 */
export function checkDefinitionInput(input: unknown, previous?: unknown): CheckedDefinition {
  const normalized = normalizeValue(input, AgentDefinitionSchema, () => undefined);
  refuse(nestingProblems(normalized));
  // One problem per location: TypeBox also reports the knock-on errors of a missing property.
  const byPath = new Map<string, string>();
  for (const problem of missingLocators(normalized)) byPath.set(problem, `definition.${problem}`);
  for (const e of Value.Errors(AgentDefinitionSchema, normalized)) {
    const path = `definition${e.path.replace(/\//g, '.')}`;
    if (!byPath.has(path)) byPath.set(path, `${path}: ${e.message}`);
    if (byPath.size >= 20) break;
  }
  if (byPath.size > 0)
    throw new ValidationError(`definition is not a valid Agent definition: ${[...byPath.values()].join('; ')}`);
  refuse([
    ...languageProblems(normalized as AgentDefinition),
    ...criteriaProblems(normalized as AgentDefinition),
    ...requestProblems(normalized as AgentDefinition),
  ]);
  refuse(keyProblems(normalized as AgentDefinition));
  const definition =
    previous === undefined
      ? (normalized as AgentDefinition)
      : keepMaskedSecrets(normalized as AgentDefinition, previous);
  return { definition, ...statusOf(definition), fileSize: definitionSize(definition) };
}

const MAX_PROBLEMS_SHOWN = 20;

/** A 400 naming each problem's place in the definition (`definition.list.fields[0].xpath: ...`). */
function refuse(problems: string[]): void {
  if (problems.length === 0) return;
  const shown = problems.slice(0, MAX_PROBLEMS_SHOWN).map((p) => `definition.${p}`);
  throw new ValidationError(`definition is not a valid Agent definition: ${shown.join('; ')}`);
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
  const valid = parameters.filter(
    (p): p is Record<string, unknown> & { name: string } => isObject(p) && typeof p.name === 'string',
  );
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

function encryptedNames(parameters: unknown): Set<string> {
  return new Set(
    storedParameters(parameters)
      .filter((p) => p.encrypted)
      .map((p) => p.name),
  );
}

/**
 * A stored definition as the API shows it: the values of encrypted parameters masked, both their
 * defaults and their values in `inputs` rows.
 */
export function maskDefinition(definition: unknown): Record<string, unknown> {
  if (!isObject(definition)) return {};
  const secret = encryptedNames(definition.parameters);
  if (secret.size === 0) return definition;
  const out: Record<string, unknown> = { ...definition };
  out.parameters = (definition.parameters as unknown[]).map((p) =>
    isObject(p) && p.encrypted === true && typeof p.defaultValue === 'string' ? { ...p, defaultValue: SECRET_MASK } : p,
  );
  if (Array.isArray(definition.inputs)) {
    out.inputs = (definition.inputs as unknown[]).map((row) =>
      isObject(row)
        ? Object.fromEntries(
            Object.entries(row).map(([k, v]) => [k, secret.has(k) && typeof v === 'string' ? SECRET_MASK : v]),
          )
        : row,
    );
  }
  return out;
}

/**
 * A client that read a masked definition and sends it back must not overwrite secrets with the mask:
 * an encrypted parameter's default (or its value in an `inputs` row) that is exactly the mask keeps
 * the previous version's value, when that parameter was encrypted there too.
 */
export function keepMaskedSecrets(definition: AgentDefinition, previous: unknown): AgentDefinition {
  const prev = isObject(previous) ? previous : {};
  const before = new Map(storedParameters(prev.parameters).map((p) => [p.name, p]));
  const wasSecret = (name: string) => before.get(name)?.encrypted === true;
  const secretNow = encryptedNames(definition.parameters);
  const out: AgentDefinition = { ...definition };
  if (definition.parameters?.some((p) => p.encrypted && p.defaultValue === SECRET_MASK)) {
    out.parameters = definition.parameters.map((p) => {
      if (!p.encrypted || p.defaultValue !== SECRET_MASK || !wasSecret(p.name)) return p;
      const { defaultValue: _masked, ...rest } = p;
      const old = before.get(p.name)?.defaultValue ?? null;
      return old === null ? rest : { ...rest, defaultValue: old };
    });
  }
  if (definition.inputs?.some((row) => Object.entries(row).some(([k, v]) => secretNow.has(k) && v === SECRET_MASK))) {
    const oldRows = Array.isArray(prev.inputs) ? prev.inputs : [];
    out.inputs = definition.inputs.map((row, i) => {
      const oldRow: unknown = oldRows[i];
      return Object.fromEntries(
        Object.entries(row).map(([k, v]) => {
          const oldValue = isObject(oldRow) ? oldRow[k] : undefined;
          const keep = secretNow.has(k) && v === SECRET_MASK && wasSecret(k) && typeof oldValue === 'string';
          return [k, keep ? oldValue : v];
        }),
      );
    });
  }
  return out;
}
