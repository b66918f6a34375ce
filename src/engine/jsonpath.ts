// JSONPath (RFC 9535) by jsonpath-rfc9535: a strict parser and an evaluator without any script
// evaluation. The library parses its expression on every call; a field's path is usually a chain of
// names and indexes (`$.price.amount`, `$.offers[0]`), which is walked here directly from the parsed
// form (cached), giving exactly what the library gives for it; any other path goes to the library.
import { query, type JsonValue } from 'jsonpath-rfc9535';
import parse from 'jsonpath-rfc9535/parser';

type Step = { name: string } | { index: number };
const compiled = new Map<string, Step[] | null>();
const CACHE_SIZE = 512;

interface Segment {
  type: string;
  node: { type: string; value?: string | number; selectors?: Array<{ type: string; value?: string | number }> };
}

function simpleStep(segment: Segment): Step | null {
  if (segment.type !== 'ChildSegment') return null;
  const { node } = segment;
  if (node.type === 'MemberNameShorthand') return { name: node.value as string };
  if (node.type !== 'BracketedSelection' || node.selectors?.length !== 1) return null;
  const [selector] = node.selectors;
  if (selector.type === 'NameSelector') return { name: selector.value as string };
  if (selector.type === 'IndexSelector') return { index: selector.value as number };
  return null;
}

/** The path's name/index chain, or null when it needs the library; throws the parser's error for a bad path. */
export function compileJsonPath(path: string): Step[] | null {
  if (compiled.has(path)) return compiled.get(path)!;
  const ast = parse(path) as unknown as { segments: Segment[] };
  const steps: Step[] = [];
  for (const segment of ast.segments) {
    const step = simpleStep(segment);
    if (!step) {
      steps.length = 0;
      break;
    }
    steps.push(step);
  }
  const simple = steps.length === ast.segments.length ? steps : null;
  if (compiled.size >= CACHE_SIZE) compiled.delete(compiled.keys().next().value!);
  compiled.set(path, simple);
  return simple;
}

function walk(value: JsonValue, steps: Step[]): JsonValue[] {
  let at: JsonValue = value;
  for (const step of steps) {
    if ('name' in step) {
      if (at === null || typeof at !== 'object' || Array.isArray(at) || !Object.hasOwn(at, step.name)) return [];
      at = at[step.name];
    } else {
      if (!Array.isArray(at)) return [];
      const i = step.index < 0 ? at.length + step.index : step.index;
      if (i < 0 || i >= at.length) return [];
      at = at[i];
    }
  }
  return [at];
}

/** Every value `path` selects from `value`, in the library's order. */
export function queryJson(value: JsonValue, path: string): JsonValue[] {
  const steps = compileJsonPath(path);
  return steps ? walk(value, steps) : query(value, path);
}

/** Null when `path` is valid JSONPath, else the parser's reason. */
export function jsonPathProblem(path: string): string | null {
  try {
    compileJsonPath(path);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

export type { JsonValue };
