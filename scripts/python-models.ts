// Renders the OpenAPI document's component schemas as Python: a StrEnum for each string enum and a
// TypedDict for each object (required properties Required, the others NotRequired). Used by
// scripts/sdk-types.ts for the Python SDK's cloud_extraction/models.py.

type Schema = {
  type?: string;
  enum?: unknown[];
  nullable?: boolean;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  $ref?: string;
  description?: string;
};

const SCALARS: Record<string, string> = { integer: 'int', number: 'float', string: 'str', boolean: 'bool' };
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PY_KEYWORDS = new Set(['from', 'class', 'def', 'global', 'import', 'in', 'is', 'not', 'or', 'and', 'type']);

/** The values of a string enum: `enum`, or a union of one-value string enums (as TypeBox writes unions of literals). */
function stringEnumValues(s: Schema): string[] | null {
  if (s.enum && s.type === 'string') return s.enum as string[];
  const members = s.anyOf ?? s.oneOf;
  if (members?.length && members.every((m) => m.type === 'string' && m.enum?.length === 1))
    return members.map((m) => m.enum![0] as string);
  return null;
}

/** The Python annotation of a schema; references are names (the module uses postponed annotations). */
function annotation(s: Schema): string {
  let t: string;
  const values = stringEnumValues(s);
  if (values) t = `Literal[${values.map((v) => JSON.stringify(v)).join(', ')}]`;
  else if (s.$ref) t = s.$ref.split('/').pop()!;
  else if (s.anyOf ?? s.oneOf) t = [...new Set((s.anyOf ?? s.oneOf)!.map(annotation))].join(' | ');
  else if (s.allOf) t = s.allOf.length === 1 ? annotation(s.allOf[0]) : 'dict[str, Any]';
  else if (s.enum && s.type === 'integer') t = `Literal[${s.enum.join(', ')}]`;
  else if (s.type === 'array') t = `list[${s.items ? annotation(s.items) : 'Any'}]`;
  else if (s.type === 'object') t = 'dict[str, Any]';
  else if (s.type === 'null') t = 'None';
  else t = SCALARS[s.type ?? ''] ?? 'Any';
  return s.nullable && !t.endsWith('| None') ? `${t} | None` : t;
}

const docstring = (text: string | undefined, indent: string) =>
  text ? `${indent}"""${text.replace(/\\/g, '\\\\').replace(/"""/g, "'''")}"""\n` : '';

function enumClass(name: string, s: Schema, values: string[]): string {
  const members = values.map((v) => {
    const member = v.replace(/[^A-Za-z0-9_]/g, '_').toUpperCase();
    return `    ${/^[0-9]/.test(member) ? `V_${member}` : member} = ${JSON.stringify(v)}\n`;
  });
  return `class ${name}(StrEnum):\n${docstring(s.description, '    ')}${members.join('')}`;
}

function typedDict(name: string, s: Schema): string {
  const required = new Set(s.required ?? []);
  const fields = Object.entries(s.properties ?? {}).map(([key, prop]) => {
    const t = annotation(prop);
    return [key, required.has(key) ? `Required[${t}]` : `NotRequired[${t}]`] as const;
  });
  const plain = fields.every(([key]) => IDENTIFIER.test(key) && !PY_KEYWORDS.has(key));
  if (!plain) {
    const body = fields.map(([key, t]) => `        ${JSON.stringify(key)}: ${JSON.stringify(t)},\n`).join('');
    return `${name} = TypedDict(\n    ${JSON.stringify(name)},\n    {\n${body}    },\n    total=False,\n)\n`;
  }
  const body = fields.map(([key, t]) => `    ${key}: ${t}\n`).join('') || '    pass\n';
  return `class ${name}(TypedDict, total=False):\n${docstring(s.description, '    ')}${body}`;
}

/** Python source of every component schema, in the document's order. */
export function pythonModels(schemas: Record<string, Schema>, header: string): string {
  const parts = Object.entries(schemas).map(([name, s]) => {
    const values = stringEnumValues(s);
    if (values) return enumClass(name, s, values);
    if (s.type === 'object' || s.properties) return typedDict(name, s);
    if (s.allOf) return `${name} = dict[str, Any]\n`;
    return `${name} = ${annotation(s)}\n`;
  });
  return (
    header +
    'from __future__ import annotations\n\n' +
    'from enum import StrEnum\n' +
    'from typing import Any, Literal, NotRequired, Required, TypedDict\n\n\n' +
    parts.join('\n\n')
  );
}
