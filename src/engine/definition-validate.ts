// Save-time and run-time validation of an Agent definition: its shape (the TypeBox schema, compiled once)
// and what the schema cannot say (selectors that do not parse, duplicate names, placeholders naming no
// parameter, keywords that apply only to another renderer, and each keyword family's own rules).
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import { load, type Cheerio } from 'cheerio';
import { criteriaProblems } from './definition-criteria.js';
import { keyProblems } from './definition-changes.js';
import { languageProblems, nestingProblems } from './definition-language.js';
import { requestProblems } from './definition-requests.js';
import {
  AgentDefinitionSchema,
  fieldsOf,
  isHttpUrl,
  NETWORK_IDLE,
  parameterDefaults,
  renderModeOf,
  selectorsOf,
  type AgentDefinition,
} from './definition.js';
import type { AnyNode } from './select.js';
import { placeholdersOf, substitutePlaceholders } from './template.js';

// Every Run validates its definition: the schema is compiled once, and selectors already found valid
// are not parsed again (a bounded set), so validation costs microseconds instead of about 1 ms.
let compiledDefinition: TypeCheck<typeof AgentDefinitionSchema> | null = null;
let emptyRoot: Cheerio<AnyNode> | null = null;
const validSelectors = new Set<string>();
const MAX_REMEMBERED_SELECTORS = 2_000;

function selectorProblem(selector: string, where: string): string | null {
  if (validSelectors.has(selector)) return null;
  try {
    emptyRoot ??= load('').root();
    emptyRoot.find(selector);
    if (validSelectors.size >= MAX_REMEMBERED_SELECTORS) validSelectors.clear();
    validSelectors.add(selector);
    return null;
  } catch (error) {
    return `${where}: invalid CSS selector '${selector}': ${(error as Error).message}`;
  }
}

const MAX_STRUCTURAL_PROBLEMS = 50;

/** Structural (schema) and semantic problems; `valid` is true only when there are none. */
export function validateDefinition(def: unknown): { valid: boolean; problems: string[] } {
  const problems: string[] = [];
  compiledDefinition ??= TypeCompiler.Compile(AgentDefinitionSchema);
  // The error walk (which names every problem) only for a definition that fails the compiled check.
  if (!compiledDefinition.Check(def)) {
    // Fields nested too deep are said so, not reported as the unknown property they are to the schema.
    const nesting = nestingProblems(def);
    if (nesting.length > 0) return { valid: false, problems: nesting };
    for (const error of Value.Errors(AgentDefinitionSchema, def)) {
      const problem = `${error.path || '/'}: ${error.message}`;
      if (!problems.includes(problem)) problems.push(problem);
      if (problems.length >= MAX_STRUCTURAL_PROBLEMS) break;
    }
  }
  // Semantic checks assume the shape is right.
  if (problems.length > 0) return { valid: false, problems };
  const definition = def as AgentDefinition;
  problems.push(...languageProblems(definition), ...criteriaProblems(definition), ...requestProblems(definition));
  problems.push(...keyProblems(definition));

  const seenParameters = new Set<string>();
  for (const p of definition.parameters ?? []) {
    if (seenParameters.has(p.name)) problems.push(`duplicate parameter name '${p.name}'`);
    seenParameters.add(p.name);
  }

  const fieldNames = new Set<string>();
  for (const field of fieldsOf(definition)) {
    if (fieldNames.has(field.name)) problems.push(`duplicate field name '${field.name}'`);
    fieldNames.add(field.name);
  }

  const seenColumns = new Set<string>();
  for (const column of definition.export?.columns ?? []) {
    if (seenColumns.has(column.name)) problems.push(`duplicate export column '${column.name}'`);
    seenColumns.add(column.name);
    if (column.required && !fieldNames.has(column.name.split('.')[0])) {
      problems.push(`export column '${column.name}' is required but no field produces it`);
    }
  }

  const selectors = selectorsOf(definition);
  if (definition.waitFor !== undefined && definition.waitFor !== NETWORK_IDLE)
    selectors.push([definition.waitFor, 'waitFor']);
  const browserOnly = (['waitFor', 'scroll', 'pageTimeoutSeconds', 'blockResources'] as const).filter(
    (k) => definition[k] !== undefined,
  );
  if (renderModeOf(definition) === 'http' && browserOnly.length > 0) {
    problems.push(
      `${browserOnly.join(', ')} ${browserOnly.length > 1 ? 'apply' : 'applies'} only when render is 'browser' or 'auto'`,
    );
  }
  for (const [selector, where] of selectors) {
    const problem = selectorProblem(selector, where);
    if (problem) problems.push(problem);
  }

  const placeholders = placeholdersOf(definition.startUrl);
  for (const name of placeholders) {
    if (!seenParameters.has(name)) problems.push(`startUrl placeholder '{{${name}}}' names no declared parameter`);
  }
  const { text, missing } = substitutePlaceholders(definition.startUrl, parameterDefaults(definition));
  if (!isHttpUrl(text) && missing.length === 0) {
    problems.push(`startUrl '${text}' is not an http(s) URL (after substituting parameter defaults)`);
  } else if (!isHttpUrl(text) && !/^\{\{/.test(definition.startUrl.trim())) {
    // Without defaults we can still tell when the fixed part is not a web address.
    problems.push(`startUrl '${definition.startUrl}' is not an http(s) URL`);
  }

  return { valid: problems.length === 0, problems };
}
