// The console's only way to the API: openapi-fetch typed by schema.d.ts, which is generated from the
// live OpenAPI description (npm run generate:console-types). A route whose schema changes in a way the
// console does not follow fails `npm run typecheck`.
import createClient from 'openapi-fetch';
import { endSession, getSession } from '../session';
import type { components, paths } from './schema';

export type Schemas = components['schemas'];

export const api = createClient<paths>({ baseUrl: window.location.origin });

api.use({
  onRequest({ request }) {
    const s = getSession();
    if (s) request.headers.set('authorization', `Bearer ${s.token}`);
    return request;
  },
  onResponse({ request, response }) {
    if (response.status === 401 && !request.url.endsWith('/oauth/token'))
      endSession('Your session expired. Sign in again.');
    return response;
  },
});

/** An error answer of the API, with the message it gave (never a guess of ours). */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly problems: string[] = [],
  ) {
    super(message);
  }
}

/** The message of either error shape (BadRequestError, ProblemDetails) or of an OAuth error. */
export function messageOf(body: unknown, status: number): ApiError {
  const b = (body ?? {}) as Record<string, unknown>;
  const text = [b.message, b.detail, b.error_description, b.title, b.error].find(
    (v): v is string => typeof v === 'string',
  );
  const problems = Array.isArray(b.problems) ? b.problems.map(String) : [];
  return new ApiError(text ?? `The API answered ${status}.`, status, problems);
}

/** Unwraps an openapi-fetch answer: its data, or an ApiError with the API's message. */
export async function ok<T>(p: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await p;
  if (!response.ok) throw messageOf(error, response.status);
  return data as T;
}

/** Downloads a Run file: fetched with the Authorization header, then saved from a blob: URL. */
export async function downloadFile(agentId: number, runId: number, fileId: number, name: string): Promise<void> {
  const blob = await fetchFile(agentId, runId, fileId);
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

async function fetchFile(agentId: number, runId: number, fileId: number): Promise<Blob> {
  const { data, error, response } = await api.GET('/api/v1/agent/{agentId}/run/{runId}/file/{fileId}/download', {
    params: { path: { agentId, runId, fileId }, query: { redirect: false } },
    parseAs: 'blob',
  });
  if (!response.ok) throw messageOf(error, response.status);
  return data as unknown as Blob;
}

/**
 * At most the first `maxBytes` of a Run file, as text: the body is read as a stream and the stream is
 * cancelled there, so a large export is never downloaded whole. `complete`: the text is the whole file.
 */
export async function fetchFileHead(
  agentId: number,
  runId: number,
  fileId: number,
  maxBytes: number,
): Promise<{ text: string; complete: boolean }> {
  const { error, response } = await api.GET('/api/v1/agent/{agentId}/run/{runId}/file/{fileId}/download', {
    params: { path: { agentId, runId, fileId }, query: { redirect: false } },
    parseAs: 'stream',
  });
  if (!response.ok || !response.body) throw messageOf(error, response.status);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let done = false;
  while (!done && size < maxBytes) {
    const next = await reader.read();
    done = next.done;
    if (next.value) {
      chunks.push(next.value);
      size += next.value.byteLength;
    }
  }
  if (!done) await reader.cancel();
  const bytes = new Uint8Array(Math.min(size, maxBytes));
  let at = 0;
  for (const c of chunks) {
    const part = c.subarray(0, bytes.length - at);
    bytes.set(part, at);
    at += part.byteLength;
  }
  const complete = done && size <= maxBytes;
  // A character cut at the end is left out (stream: true), not shown as a replacement character.
  return { text: new TextDecoder().decode(bytes, { stream: !complete }), complete };
}
