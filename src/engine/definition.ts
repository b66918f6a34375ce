import { Type, type Static } from '@sinclair/typebox';
import { SuccessCriteriaSchema } from './definition-criteria.js';
import { AgentChangesSchema, AgentKeySchema } from './definition-changes.js';
import { AgentFieldSchema, type FieldSpec } from './definition-fields.js';
import { AgentLoginSchema, AgentRequestSchema, UserAgentSchema } from './definition-requests.js';
import { PolitenessSchema, ProxyRotationSchema } from './definition-politeness.js';

export const DEFAULT_MAX_PAGES = 100;
export const DEFAULT_EXPORT_FORMAT = 'csv';

// Nested schemas are named by `title`, not `$id`: the field schema appears twice (list and follow), and Ajv
// (Fastify's validator) refuses a schema in which one `$id` occurs more than once.
export const AgentParameterSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z_][A-Za-z0-9_.-]*$' }),
    defaultValue: Type.Optional(Type.String()),
    encrypted: Type.Optional(Type.Boolean({ description: 'Value is encrypted at rest and masked in logs.' })),
    description: Type.Optional(Type.String()),
  },
  {
    title: 'AgentParameter',
    additionalProperties: false,
    description: 'A value substituted for {{name}} in startUrl.',
  },
);

export { AgentFieldSchema, FieldTransformSchema, type FieldSpec, type FieldStep } from './definition-fields.js';

const XPathLocator = (description: string) =>
  Type.Optional(Type.String({ minLength: 1, description: `${description} (XPath 1.0, instead of selector).` }));
const JsonPathLocator = (description: string, example: string) =>
  Type.Optional(Type.String({ minLength: 1, description: `JSON pages: ${description}.`, examples: [example] }));

export const AgentListSchema = Type.Object(
  {
    selector: Type.Optional(
      Type.String({ minLength: 1, description: 'One record per element matching this selector.' }),
    ),
    xpath: XPathLocator('One record per node this expression selects'),
    jsonPath: JsonPathLocator('one record per value this JSONPath selects', '$.items[*]'),
    fields: Type.Array(AgentFieldSchema, { minItems: 1 }),
  },
  { title: 'AgentList', additionalProperties: false },
);

export const AgentNextSchema = Type.Object(
  {
    selector: Type.Optional(
      Type.String({ minLength: 1, description: 'The href of the first match is the next list page.' }),
    ),
    xpath: XPathLocator(
      'The first node selected (its href, or the value of a text or attribute node) is the next list page',
    ),
    jsonPath: JsonPathLocator('the first value selected is the next list page URL', '$.next'),
    maxPages: Type.Optional(
      Type.Integer({ minimum: 1, description: `List pages per input; default ${DEFAULT_MAX_PAGES}.` }),
    ),
  },
  { title: 'AgentNext', additionalProperties: false },
);

export const AgentFollowSchema = Type.Object(
  {
    selector: Type.Optional(
      Type.String({ minLength: 1, description: 'Link inside the list element whose href is the detail page.' }),
    ),
    xpath: XPathLocator(
      'The first node selected relative to the list element (its href, or a text or attribute value) is the detail page',
    ),
    fields: Type.Array(AgentFieldSchema, { minItems: 1 }),
    request: Type.Optional(AgentRequestSchema),
  },
  { title: 'AgentFollow', additionalProperties: false },
);

export const ExportFormatSchema = Type.Union([Type.Literal('csv'), Type.Literal('json'), Type.Literal('ndjson')]);

export const AgentExportColumnSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    required: Type.Optional(
      Type.Boolean({ description: 'Some field must produce it, and every exported record must have a value.' }),
    ),
  },
  { title: 'AgentExportColumn', additionalProperties: false },
);

export const AgentExportSchema = Type.Object(
  {
    format: Type.Optional(ExportFormatSchema),
    columns: Type.Optional(Type.Array(AgentExportColumnSchema)),
  },
  { title: 'AgentExport', additionalProperties: false },
);

export const RenderModeSchema = Type.Union([Type.Literal('http'), Type.Literal('browser'), Type.Literal('auto')], {
  description:
    'http (default): fetch the HTML as served. browser: render every page in Chromium (for lists built by script). ' +
    'auto: fetch over HTTP and render in Chromium only a page whose selector matches nothing and which carries scripts.',
  examples: ['browser'],
});
export type RenderMode = Static<typeof RenderModeSchema>;
export const DEFAULT_RENDER_MODE: RenderMode = 'http';
export const MAX_SCROLLS = 100;
export const MAX_PAGE_TIMEOUT_SECONDS = 300;
export const DEFAULT_PAGE_TIMEOUT_SECONDS = 30;
/** Resource types a browser page skips unless the definition says otherwise. */
export const BLOCKABLE_RESOURCES = ['image', 'font', 'media', 'stylesheet'] as const;
export const DEFAULT_BLOCKED_RESOURCES: Array<(typeof BLOCKABLE_RESOURCES)[number]> = ['image', 'font', 'media'];

export const AgentDefinitionSchema = Type.Object(
  {
    startUrl: Type.String({ minLength: 1, description: 'May hold {{parameter}} placeholders.' }),
    parameters: Type.Optional(Type.Array(AgentParameterSchema)),
    inputs: Type.Optional(
      Type.Array(Type.Record(Type.String(), Type.String()), {
        description: 'Rows of parameter values; each row is one start of the crawl (one Agent Input).',
      }),
    ),
    timeoutSeconds: Type.Optional(Type.Integer({ minimum: 1 })),
    maxRecords: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'The Run stops extracting after this many records (across inputs and pages) and ends Success.',
        examples: [100],
      }),
    ),
    responseType: Type.Optional(
      Type.Union([Type.Literal('html'), Type.Literal('json')], {
        description:
          "'json': pages are JSON, read with list.jsonPath and each field's jsonPath (implied by list.jsonPath).",
        examples: ['json'],
      }),
    ),
    list: AgentListSchema,
    next: Type.Optional(AgentNextSchema),
    follow: Type.Optional(AgentFollowSchema),
    export: Type.Optional(AgentExportSchema),
    render: Type.Optional(RenderModeSchema),
    waitFor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description: "Browser only: a CSS selector to wait for before reading the page, or 'networkidle'.",
        examples: ['.product', 'networkidle'],
      }),
    ),
    scroll: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_SCROLLS,
        description: 'Browser only: scroll to the bottom up to this many times while new list elements appear.',
        examples: [10],
      }),
    ),
    pageTimeoutSeconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_PAGE_TIMEOUT_SECONDS,
        description: `Browser only: time allowed to render one page, waits and scrolls included (default ${DEFAULT_PAGE_TIMEOUT_SECONDS}).`,
      }),
    ),
    blockResources: Type.Optional(
      Type.Array(Type.Union(BLOCKABLE_RESOURCES.map((r) => Type.Literal(r))), {
        uniqueItems: true,
        description: `Browser only: resource types not loaded (default ${DEFAULT_BLOCKED_RESOURCES.join(', ')}); [] loads everything.`,
        examples: [['image', 'font', 'media']],
      }),
    ),
    successCriteria: Type.Optional(SuccessCriteriaSchema),
    key: Type.Optional(AgentKeySchema),
    changes: Type.Optional(AgentChangesSchema),
    request: Type.Optional(AgentRequestSchema),
    login: Type.Optional(AgentLoginSchema),
    userAgent: Type.Optional(UserAgentSchema),
    politeness: Type.Optional(PolitenessSchema),
    proxy: Type.Optional(ProxyRotationSchema),
  },
  { $id: 'AgentDefinition', additionalProperties: false, description: 'What a Run executes.' },
);

export type AgentParameter = Static<typeof AgentParameterSchema>;
export type AgentField = Static<typeof AgentFieldSchema>;
export type FieldTransform = NonNullable<AgentField['transform']>;
export type ExportFormat = Static<typeof ExportFormatSchema>;
export type AgentDefinition = Static<typeof AgentDefinitionSchema>;

export interface ParameterInfo {
  name: string;
  defaultValue: string | null;
  encrypted: boolean;
  description: string | null;
}

/** The declared parameters with optional properties made explicit. */
export function parametersOf(def: AgentDefinition): ParameterInfo[] {
  return (def.parameters ?? []).map((p) => ({
    name: p.name,
    defaultValue: p.defaultValue ?? null,
    encrypted: p.encrypted === true,
    description: p.description ?? null,
  }));
}

/** `{ name: defaultValue }` for parameters that have a default. */
export function parameterDefaults(def: AgentDefinition): Record<string, string> {
  const defaults: Record<string, string> = {};
  for (const p of def.parameters ?? []) if (p.defaultValue !== undefined) defaults[p.name] = p.defaultValue;
  return defaults;
}

/**
 * The input rows a Run executes: each of the definition's `inputs` (or one empty row), on top of the
 * parameter defaults, with `runValues` (the Run's inputParameters) taking precedence over both.
 */
export function resolveInputRows(
  def: AgentDefinition,
  runValues: Record<string, string> = {},
): Array<Record<string, string>> {
  const defaults = parameterDefaults(def);
  const rows = def.inputs && def.inputs.length > 0 ? def.inputs : [{}];
  return rows.map((row) => ({ ...defaults, ...row, ...runValues }));
}

/** Every field, list fields first, then follow fields. */
export function fieldsOf(def: AgentDefinition): AgentField[] {
  return [...def.list.fields, ...(def.follow?.fields ?? [])];
}

/** The CSS selectors of `fields` and of their nested fields, with where each is: `list.fields[0].fields[1].selector`. */
function fieldSelectors(fields: FieldSpec[], where: string): Array<[string, string]> {
  return fields.flatMap((f, i): Array<[string, string]> => [
    ...(f.selector ? [[f.selector, `${where}[${i}].selector`] as [string, string]] : []),
    ...(f.fields ? fieldSelectors(f.fields, `${where}[${i}].fields`) : []),
  ]);
}

/** Every CSS selector of the definition with where it is: `[selector, 'list.fields[0].selector']`. */
export function selectorsOf(def: AgentDefinition): Array<[string, string]> {
  const selectors: Array<[string, string]> = [];
  if (def.list.selector) selectors.push([def.list.selector, 'list.selector']);
  selectors.push(...fieldSelectors(def.list.fields, 'list.fields'));
  if (def.next?.selector) selectors.push([def.next.selector, 'next.selector']);
  if (def.follow) {
    if (def.follow.selector) selectors.push([def.follow.selector, 'follow.selector']);
    selectors.push(...fieldSelectors(def.follow.fields, 'follow.fields'));
  }
  return selectors;
}

function fieldXPaths(fields: FieldSpec[]): string[] {
  return fields.flatMap((f) => [...(f.xpath !== undefined ? [f.xpath] : []), ...fieldXPaths(f.fields ?? [])]);
}

/** Every XPath expression of the definition. */
export function xpathsOf(def: AgentDefinition): string[] {
  const xpaths = [def.list.xpath, def.next?.xpath, def.follow?.xpath].filter((x): x is string => x !== undefined);
  return [...xpaths, ...fieldXPaths(def.list.fields), ...fieldXPaths(def.follow?.fields ?? [])];
}

/** Export column names: the declared columns, or every field name (list fields, then follow fields). */
export function exportColumnsOf(def: AgentDefinition): string[] {
  if (def.export?.columns && def.export.columns.length > 0) return def.export.columns.map((c) => c.name);
  return fieldsOf(def).map((f) => f.name);
}

export function exportFormatOf(def: AgentDefinition): ExportFormat {
  return def.export?.format ?? DEFAULT_EXPORT_FORMAT;
}

/** The `waitFor` value that waits for the network to go quiet instead of for a selector. */
export const NETWORK_IDLE = 'networkidle';

export function renderModeOf(def: AgentDefinition): RenderMode {
  return def.render ?? DEFAULT_RENDER_MODE;
}

/**
 * Whether a Run of `def` over `inputRows` requests at most one page: read over HTTP (no browser),
 * one input, no next list page and no detail pages. Its work is bounded by one request and one parse.
 */
export function fetchesOnePage(def: AgentDefinition, inputRows: readonly unknown[]): boolean {
  return renderModeOf(def) === 'http' && inputRows.length <= 1 && !def.next && !def.follow;
}

export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
