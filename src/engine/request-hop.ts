// One hop of a page request over HTTP: the engine's headers with the definition's and the jar's cookies,
// and what a redirect turns the request into (as browsers do: 303, and 301/302 after a POST, become a GET
// without a body; 307 and 308 repeat the request as it was).
import type { PageRequest } from './page.js';

/** The headers of one hop: the engine's own, the request's (which win), the jar's Cookie joined to any given. */
export function requestHeaders(
  base: Record<string, string>,
  request: PageRequest | undefined,
  cookie: string | undefined,
): Record<string, string> {
  if (!request && !cookie) return base;
  const headers: Record<string, string> = { ...base };
  for (const [name, value] of Object.entries(request?.headers ?? {})) headers[name.toLowerCase()] = value;
  if (cookie) headers.cookie = headers.cookie ? `${cookie}; ${headers.cookie}` : cookie;
  return headers;
}

/** The request a redirect with `status` asks for. */
export function nextHop(request: PageRequest, status: number): PageRequest {
  if (status === 307 || status === 308 || request.method === 'GET') return request;
  const headers = Object.fromEntries(
    Object.entries(request.headers).filter(([name]) => name.toLowerCase() !== 'content-type'),
  );
  return { ...request, method: 'GET', headers, body: undefined };
}
