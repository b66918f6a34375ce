// The checks of a definition's extraction language that its schema cannot make: one locator per place,
// XPath and JSONPath expressions that parse, regular expressions that compile (with the groups they
// name), date formats, zones and locales that work, fields nested at most MAX_FIELD_DEPTH levels, and
// JSON definitions that locate by JSONPath only. Each problem names where it is (`list.fields[0].xpath`).
// A definition with any of them cannot be saved (400).
import { load } from 'cheerio';
import { MAX_FIELD_DEPTH, type FieldSpec, type FieldStep } from './definition-fields.js';
import { jsonPathProblem } from './jsonpath.js';
import type { Document } from './select.js';
import { compilePattern, dateStepProblem } from './transforms.js';
import { xpathProblem } from './xpath.js';

let probe: Document | null = null;
const probeDocument = () => (probe ??= load('').root()[0]);

interface Locators {
  selector?: string;
  xpath?: string;
  jsonPath?: string;
}
/** The parts of a definition the language's checks read (an AgentDefinition is one). */
interface LanguagePlan {
  list: Locators & { fields: FieldSpec[] };
  next?: Locators;
  follow?: Locators & { fields: FieldSpec[] };
  responseType?: 'html' | 'json';
}

/** Whether the definition reads JSON pages (list.jsonPath, or responseType 'json'). */
export function readsJson(def: Pick<LanguagePlan, 'list' | 'responseType'>): boolean {
  return def.list.jsonPath !== undefined || def.responseType === 'json';
}

function locatorProblems(where: string, locators: Locators, json: boolean): string[] {
  const given = (['selector', 'xpath', 'jsonPath'] as const).filter((k) => locators[k] !== undefined);
  const problems: string[] = [];
  if (given.length > 1) problems.push(`${where}: give one of ${given.join(', ')}, not several`);
  if (json && (locators.selector !== undefined || locators.xpath !== undefined))
    problems.push(`${where}: a JSON definition locates values with jsonPath, not selector or xpath`);
  if (!json && locators.jsonPath !== undefined)
    problems.push(`${where}.jsonPath: applies only to JSON definitions (list.jsonPath or responseType 'json')`);
  if (locators.xpath !== undefined) {
    const problem = xpathProblem(locators.xpath, probeDocument());
    if (problem) problems.push(`${where}.xpath: invalid XPath '${locators.xpath}': ${problem}`);
  }
  if (locators.jsonPath !== undefined) {
    const problem = jsonPathProblem(locators.jsonPath);
    if (problem) problems.push(`${where}.jsonPath: invalid JSONPath '${locators.jsonPath}': ${problem}`);
  }
  return problems;
}

function patternProblem(pattern: string, flags: string | undefined): string | null {
  try {
    compilePattern(pattern, flags);
    return null;
  } catch (error) {
    return `invalid regular expression '${pattern}': ${(error as Error).message}`;
  }
}

function stepProblem(step: FieldStep, where: string): string | null {
  if (typeof step !== 'object') return null;
  if ('regex' in step) {
    const problem = patternProblem(step.regex, step.flags);
    if (problem) return `${where}.regex: ${problem}`;
    const re = compilePattern(step.regex, step.flags);
    const group = step.group ?? 0;
    if (typeof group === 'number' && group > re.groupCount())
      return `${where}.group: the pattern has ${re.groupCount()} group(s), not ${group}`;
    if (typeof group === 'string' && !(group in re.namedGroups()))
      return `${where}.group: the pattern has no group named '${group}'`;
  }
  if ('replace' in step) {
    const problem = patternProblem(step.replace, step.flags);
    if (problem) return `${where}.replace: ${problem}`;
  }
  if ('date' in step) {
    const problem = dateStepProblem(step);
    if (problem) return `${where}.date: ${problem}`;
  }
  return null;
}

function fieldProblems(fields: FieldSpec[], where: string, json: boolean): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  fields.forEach((field, i) => {
    const at = `${where}[${i}]`;
    if (where.includes('.fields[') && names.has(field.name))
      problems.push(`${at}.name: duplicate field name '${field.name}'`);
    names.add(field.name);
    problems.push(...locatorProblems(at, field, json));
    if (field.fields && field.attribute !== undefined)
      problems.push(`${at}: a field with fields yields objects and takes no attribute`);
    if (field.fields && field.transform !== undefined)
      problems.push(`${at}: a field with fields yields objects and takes no transform`);
    const steps =
      field.transform === undefined ? [] : Array.isArray(field.transform) ? field.transform : [field.transform];
    steps.forEach((step, s) => {
      const problem = stepProblem(step, Array.isArray(field.transform) ? `${at}.transform[${s}]` : `${at}.transform`);
      if (problem) problems.push(problem);
    });
    if (field.fields) problems.push(...fieldProblems(field.fields, `${at}.fields`, json));
  });
  return problems;
}

/** The language problems of a definition whose shape matches the schema. */
export function languageProblems(def: LanguagePlan): string[] {
  const json = readsJson(def);
  const problems = [
    ...missingLocators(def),
    ...locatorProblems('list', def.list, json),
    ...fieldProblems(def.list.fields, 'list.fields', json),
  ];
  if (def.next) problems.push(...locatorProblems('next', def.next, json));
  if (def.follow) {
    if (json) problems.push('follow: detail pages are not followed from a JSON definition');
    else problems.push(...locatorProblems('follow', def.follow, false));
    problems.push(...fieldProblems(def.follow.fields, 'follow.fields', false));
  }
  if (def.responseType === 'html' && def.list.jsonPath !== undefined)
    problems.push("list.jsonPath: responseType 'html' reads pages as HTML, which have no JSONPath");
  return problems;
}

function nested(value: unknown, where: string, depth: number, out: string[]): void {
  if (!Array.isArray(value)) return;
  value.forEach((field: unknown, i) => {
    if (typeof field !== 'object' || field === null || !('fields' in field)) return;
    const at = `${where}[${i}].fields`;
    if (depth >= MAX_FIELD_DEPTH) out.push(`${at}: fields nest at most ${MAX_FIELD_DEPTH} levels deep`);
    else nested(field.fields, at, depth + 1, out);
  });
}

/** list, next and follow without any locator, in a definition not yet known to match the schema. */
export function missingLocators(def: unknown): string[] {
  if (typeof def !== 'object' || def === null) return [];
  const out: string[] = [];
  for (const part of ['list', 'next', 'follow'] as const) {
    const value = (def as Record<string, unknown>)[part];
    if (typeof value !== 'object' || value === null) continue;
    const locators = value as Record<string, unknown>;
    if (locators.selector === undefined && locators.xpath === undefined && locators.jsonPath === undefined)
      out.push(`${part}.selector: required (or ${part === 'follow' ? 'xpath' : 'xpath, or jsonPath'} instead)`);
  }
  return out;
}

/**
 * Problems found before the schema's: fields nested deeper than MAX_FIELD_DEPTH (which the schema would
 * call an unknown property) and missing locators (which it cannot require, one of three being needed).
 */
export function nestingProblems(def: unknown): string[] {
  const out: string[] = [];
  if (typeof def !== 'object' || def === null) return out;
  const { list, follow } = def as { list?: { fields?: unknown }; follow?: { fields?: unknown } };
  nested(list?.fields, 'list.fields', 1, out);
  nested(follow?.fields, 'follow.fields', 1, out);
  return out;
}
