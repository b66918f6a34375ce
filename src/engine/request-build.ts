// A definition's `request` made into what goes on the wire for one input: placeholders filled from the
// input's values, the body encoded (text as is, a form URL-encoded, JSON serialized) with its Content-Type
// unless the definition gave one.
import { randomBytes } from 'node:crypto';
import type { AgentRequest } from './definition-requests.js';
import type { PageRequest } from './page.js';
import { fillPlaceholders } from './template.js';

type Values = Record<string, string | undefined>;

const fill = (text: string, values: Values) => fillPlaceholders(text, values).text;

function fillJson(value: unknown, values: Values): unknown {
  if (typeof value === 'string') return fill(value, values);
  if (Array.isArray(value)) return value.map((v) => fillJson(v, values));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillJson(v, values)]));
  return value;
}

/** A form body: `name=value&...`, URL-encoded as browsers send forms. */
export function formBody(fields: Iterable<[string, string]>): string {
  return new URLSearchParams([...fields]).toString();
}

/**
 * A multipart/form-data body (RFC 7578) as browsers send a form whose enctype says so: one part per field,
 * line breaks in values as CRLF, quotes and line breaks in names escaped; with its Content-Type.
 */
export function multipartForm(fields: Iterable<[string, string]>): { contentType: string; body: string } {
  const boundary = `----CloudExtractionService${randomBytes(12).toString('hex')}`;
  const escapeName = (name: string) => name.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const parts = [...fields].map(
    ([name, value]) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${escapeName(name)}"\r\n\r\n` +
      `${value.replace(/\r\n|\r|\n/g, '\r\n')}\r\n`,
  );
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: `${parts.join('')}--${boundary}--\r\n` };
}

const hasHeader = (headers: Record<string, string>, name: string) =>
  Object.keys(headers).some((k) => k.toLowerCase() === name);

/** The request of one input's start page (or one detail page), its placeholders filled from `values`. */
export function buildRequest(request: AgentRequest, values: Values): PageRequest {
  const headers = Object.fromEntries(Object.entries(request.headers ?? {}).map(([k, v]) => [k, fill(v, values)]));
  const method = request.method ?? 'GET';
  const body = request.body;
  if (method !== 'POST' || body === undefined) return { method, headers };
  let text: string;
  let type: string | undefined;
  if (typeof body === 'string') text = fill(body, values);
  else if ('form' in body) {
    text = formBody(Object.entries(body.form).map(([k, v]) => [k, fill(v, values)]));
    type = 'application/x-www-form-urlencoded';
  } else {
    text = JSON.stringify(fillJson(body.json, values));
    type = 'application/json';
  }
  if (type && !hasHeader(headers, 'content-type')) headers['Content-Type'] = type;
  return { method, headers, body: text };
}

/** The same request for the input's next list pages: its headers, a plain GET. */
export function headersOnly(request: PageRequest): PageRequest {
  return { method: 'GET', headers: request.headers };
}
