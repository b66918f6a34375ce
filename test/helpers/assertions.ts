// Exact assertions on the two error shapes of docs/api-contract.md.
import { expect } from 'vitest';

interface Res {
  statusCode: number;
  headers: Record<string, unknown>;
  json(): any;
}

export function expectBadRequest(res: Res, errorCode: string) {
  expect(res.statusCode, JSON.stringify(res.json())).toBe(400);
  const body = res.json();
  expect(Object.keys(body).sort()).toEqual(['errorCode', 'message', 'severity', 'statusCode', 'statusDescription']);
  expect(body).toMatchObject({ statusCode: 400, statusDescription: 'Bad Request', severity: 0, errorCode });
  expect(typeof body.message).toBe('string');
  return body;
}

export function expectProblem(res: Res, status: number, errorCode: string) {
  expect(res.statusCode, JSON.stringify(res.json())).toBe(status);
  expect(String(res.headers['content-type'])).toContain('application/problem+json');
  const body = res.json();
  expect(body).toMatchObject({ status, errorCode });
  for (const k of ['type', 'title', 'detail', 'instance']) expect(typeof body[k]).toBe('string');
  return body;
}
