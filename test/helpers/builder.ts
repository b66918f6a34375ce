// Helpers for Agent Builder tests: drive a session through the HTTP API, following its events by
// long poll (the server wakes the request when an event is written; no sleeping here).
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { auth } from './app.js';

export interface BuilderEvent {
  index: number;
  type: string;
  message: string;
  data: any;
  created: string;
}

export function builderClient(app: FastifyInstance, key: () => string) {
  const call = (method: 'GET' | 'POST', url: string, payload?: unknown, apiKey = key()) =>
    app.inject({
      method,
      url,
      headers: { ...auth(apiKey), 'content-type': 'application/json' },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  return {
    call,
    async start(body: Record<string, unknown>): Promise<string> {
      const res = await call('POST', '/api/v1/agent-builder/start', body);
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toEqual({ success: true, sessionId: expect.any(String) });
      return res.json().sessionId;
    },
    /** Long-polls events until the status is one of `statuses`; returns every event seen after `from`. */
    async until(
      sessionId: string,
      statuses: string[],
      from = 0,
      limitMs = 60_000,
    ): Promise<{ status: string; events: BuilderEvent[] }> {
      const deadline = Date.now() + limitMs;
      const events: BuilderEvent[] = [];
      let last = from;
      for (;;) {
        const res = await call('GET', `/api/v1/agent-builder/${sessionId}/events?lastEventIndex=${last}`);
        expect(res.statusCode, res.body).toBe(200);
        const body = res.json() as { status: string; events: BuilderEvent[] };
        events.push(...body.events);
        if (body.events.length > 0) last = body.events[body.events.length - 1].index;
        if (statuses.includes(body.status) && body.events.length === 0) return { status: body.status, events };
        if (
          statuses.includes(body.status) &&
          events.some((e) => ['ready', 'error', 'cancelled', 'completed'].includes(e.type))
        ) {
          return { status: body.status, events };
        }
        if (Date.now() > deadline)
          throw new Error(
            `session ${sessionId} did not reach ${statuses.join('/')}: ${JSON.stringify(events.map((e) => e.type))}`,
          );
      }
    },
    async session(sessionId: string) {
      const res = await call('GET', `/api/v1/agent-builder/${sessionId}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    },
  };
}
