// The optional LLM step: an OpenAI-compatible chat endpoint is shown the prompt and a compact
// description of the candidates (selectors, counts, a few sample values; never the page) and asked
// to choose the record container and name its fields. Its answer is only a suggestion: it becomes a
// definition that must pass the schema and extract values on the page, or the heuristic draft stands.
import type { CheerioAPI } from 'cheerio';
import { type AgentDefinition, type AgentField } from '../../engine/definition.js';
import { validateDefinition } from '../../engine/definition-validate.js';
import { extractFields, isMissing } from '../../engine/extract.js';
import type { Candidate } from './inference/candidate.js';

export interface LlmConfig {
  url: string;
  model: string;
  apiKey: string | null;
  timeoutMs: number;
}

export type LlmOutcome =
  { accepted: true; definition: AgentDefinition; reason: string } | { accepted: false; reason: string };

const MAX_CANDIDATES = 4;
const MAX_FIELDS = 14;
const SAMPLE_LENGTH = 60;

/** The compact description the LLM sees: no page HTML, a few short samples per field. */
export function describeCandidates(candidates: Candidate[]) {
  return candidates.slice(0, MAX_CANDIDATES).map((c, i) => ({
    candidate: i,
    selector: c.selector,
    records: c.count,
    // Why the page structure set it ahead or back (named like the prompt's records, inside a "related" box).
    ...(c.why ? { why: c.why } : {}),
    fields: c.fields.slice(0, MAX_FIELDS).map((f, j) => ({
      id: j,
      kind: f.kind,
      ...(f.label ? { label: f.label } : {}),
      ...(f.concept ? { looksLike: f.concept } : {}),
      hints: f.hints.slice(0, 3),
      samples: f.samples.slice(0, 2).map((s) => (s.length > SAMPLE_LENGTH ? `${s.slice(0, SAMPLE_LENGTH)}...` : s)),
    })),
  }));
}

function chatUrl(base: string): string {
  const trimmed = base.replace(/\/+$/, '');
  return /\/chat\/completions$/.test(trimmed) ? trimmed : `${trimmed}/chat/completions`;
}

const SYSTEM = [
  'You help build a web-data extraction agent. You get what the user wants and candidate record lists found on a page.',
  'Answer with JSON only: {"candidate": <number>, "fields": [{"id": <field id of that candidate>, "name": "<snake_case name>"}]}.',
  'Choose the candidate holding the records the user wants; keep only the fields the user asks for (all useful ones if they name none),',
  "named with the user's own words where possible.",
].join(' ');

function parseAnswer(content: string): unknown {
  const text = content
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/```\s*$/, '');
  return JSON.parse(text);
}

/** Fields that extract a value from at least one of the page's first records. */
function problemsOnPage(definition: AgentDefinition, $: CheerioAPI, pageUrl: string): string[] {
  let elements;
  try {
    elements = $(definition.list.selector).toArray().slice(0, 10);
  } catch {
    return [`list selector '${definition.list.selector}' is not valid CSS`];
  }
  if (elements.length === 0) return [`list selector '${definition.list.selector}' matches nothing on the page`];
  const records = elements.map((el) => extractFields($.root()[0], el, definition.list.fields, pageUrl));
  return definition.list.fields
    .filter((f) => records.every((r) => isMissing(r[f.name])))
    .map((f) => `field '${f.name}' is empty on every record`);
}

function definitionFromChoice(
  answer: unknown,
  candidates: Candidate[],
  heuristic: AgentDefinition,
): AgentDefinition | string {
  const a = answer as { candidate?: unknown; fields?: unknown; definition?: unknown };
  if (a && typeof a === 'object' && a.definition && typeof a.definition === 'object') {
    // A whole definition: the start page and pagination stay ours.
    const def = { ...(a.definition as AgentDefinition), startUrl: heuristic.startUrl };
    return def;
  }
  if (typeof a?.candidate !== 'number' || !Array.isArray(a.fields))
    return 'the answer is neither {candidate, fields} nor {definition}';
  const candidate = candidates.slice(0, MAX_CANDIDATES)[a.candidate];
  if (!candidate) return `candidate ${a.candidate} does not exist`;
  const fields: AgentField[] = [];
  for (const item of a.fields as Array<{ id?: unknown; name?: unknown }>) {
    const f = typeof item?.id === 'number' ? candidate.fields.slice(0, MAX_FIELDS)[item.id] : undefined;
    if (!f) return `field ${String(item?.id)} does not exist in candidate ${a.candidate}`;
    if (typeof item.name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]{0,59}$/.test(item.name))
      return `field name ${JSON.stringify(item?.name)} is not a plain identifier`;
    fields.push({
      name: item.name,
      ...(f.selector ? { selector: f.selector } : {}),
      ...(f.attribute ? { attribute: f.attribute } : {}),
      ...(f.transform ? { transform: f.transform } : {}),
    });
  }
  if (fields.length === 0) return 'the answer chose no field';
  const sameList = candidate.selector === heuristic.list.selector;
  return {
    startUrl: heuristic.startUrl,
    list: { selector: candidate.selector, fields },
    ...(heuristic.next ? { next: heuristic.next } : {}),
    ...(sameList && heuristic.follow ? { follow: heuristic.follow } : {}),
  };
}

/** Asks the LLM; any failure (network, timeout, bad JSON, a draft that does not work) keeps the heuristic draft. */
export async function refineWithLlm(input: {
  config: LlmConfig;
  prompt: string;
  candidates: Candidate[];
  heuristic: AgentDefinition;
  page: { $: CheerioAPI; url: string };
  signal?: AbortSignal;
}): Promise<LlmOutcome> {
  const { config } = input;
  const timeout = AbortSignal.timeout(config.timeoutMs);
  const signal = input.signal ? AbortSignal.any([input.signal, timeout]) : timeout;
  let content: string;
  try {
    const res = await fetch(chatUrl(config.url), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: config.model,
        temperature: 0,
        messages: [
          { role: 'system', content: SYSTEM },
          {
            role: 'user',
            content: JSON.stringify({
              request: input.prompt.slice(0, 2000),
              candidates: describeCandidates(input.candidates),
            }),
          },
        ],
      }),
      signal,
    });
    if (!res.ok) return { accepted: false, reason: `the LLM endpoint answered ${res.status}` };
    const body = (await res.json()) as { choices?: Array<{ message?: { content?: unknown } }> };
    const text = body.choices?.[0]?.message?.content;
    if (typeof text !== 'string') return { accepted: false, reason: 'the LLM answer has no message content' };
    content = text;
  } catch (err) {
    if (timeout.aborted) return { accepted: false, reason: `the LLM did not answer within ${config.timeoutMs} ms` };
    // The message of a fetch failure carries no credentials (the key is only in a header).
    return { accepted: false, reason: `the LLM endpoint could not be reached (${(err as Error).message})` };
  }
  let answer: unknown;
  try {
    answer = parseAnswer(content);
  } catch {
    return { accepted: false, reason: 'the LLM answer is not JSON' };
  }
  const definition = definitionFromChoice(answer, input.candidates, input.heuristic);
  if (typeof definition === 'string') return { accepted: false, reason: definition };
  const { problems } = validateDefinition(definition);
  if (problems.length > 0)
    return { accepted: false, reason: `its definition is invalid: ${problems.slice(0, 3).join('; ')}` };
  const onPage = problemsOnPage(definition, input.page.$, input.page.url);
  if (onPage.length > 0)
    return { accepted: false, reason: `its definition does not work on the page: ${onPage.slice(0, 3).join('; ')}` };
  return {
    accepted: true,
    definition,
    reason: `the LLM chose '${definition.list.selector}' with fields ${definition.list.fields.map((f) => f.name).join(', ')}`,
  };
}
