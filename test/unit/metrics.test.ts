// The recording functions other features call (webhook deliverer, storage adapters) and the label
// rules of HTTP metrics, read back from the process registry in the Prometheus text format.
import { describe, expect, it } from 'vitest';
import {
  recordHttpRequest,
  recordStorageError,
  recordWebhookAttempt,
  recordWebhookDisabled,
  registry,
  WEBHOOK_ATTEMPT_OUTCOMES,
  WEBHOOK_DISABLE_REASONS,
} from '../../src/lib/metrics.js';
import { parseMetrics, valueOf } from '../helpers/metrics.js';

const read = async () => parseMetrics(await registry.metrics());

describe('metrics recorders', () => {
  it('webhook attempts by outcome with their latency, and disabled subscriptions by reason', async () => {
    const before = await read();
    // Every outcome and reason exists at 0 before the first event (alerts see them from the start).
    const exists = (name: string, label: string, value: string) =>
      before.some((s) => s.name === name && s.labels[label] === value);
    for (const outcome of WEBHOOK_ATTEMPT_OUTCOMES) {
      expect(exists('ces_webhook_deliveries_total', 'outcome', outcome)).toBe(true);
    }
    for (const reason of WEBHOOK_DISABLE_REASONS) {
      expect(exists('ces_webhook_subscriptions_disabled_total', 'reason', reason)).toBe(true);
    }
    recordWebhookAttempt('success', 0.2);
    recordWebhookAttempt('success', 0.3);
    recordWebhookAttempt('timeout', 15);
    recordWebhookDisabled('gone');
    const after = await read();
    const d = (name: string, labels: Record<string, string>) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);
    expect(d('ces_webhook_deliveries_total', { outcome: 'success' })).toBe(2);
    expect(d('ces_webhook_deliveries_total', { outcome: 'timeout' })).toBe(1);
    expect(d('ces_webhook_deliveries_total', { outcome: 'http_error' })).toBe(0);
    expect(d('ces_webhook_delivery_duration_seconds_sum', { outcome: 'success' })).toBeCloseTo(0.5, 9);
    expect(d('ces_webhook_delivery_duration_seconds_bucket', { outcome: 'success', le: '0.25' })).toBe(1);
    expect(d('ces_webhook_delivery_duration_seconds_bucket', { outcome: 'timeout', le: '10' })).toBe(0);
    expect(d('ces_webhook_delivery_duration_seconds_bucket', { outcome: 'timeout', le: '15' })).toBe(1);
    expect(d('ces_webhook_subscriptions_disabled_total', { reason: 'gone' })).toBe(1);
    expect(d('ces_webhook_subscriptions_disabled_total', { reason: 'failing' })).toBe(0);
  });

  it('storage errors by driver and kind', async () => {
    const before = await read();
    recordStorageError('s3', 'unavailable');
    recordStorageError('s3', 'unavailable');
    recordStorageError('local', 'full');
    const after = await read();
    const d = (labels: Record<string, string>) =>
      valueOf(after, 'ces_storage_errors_total', labels) - valueOf(before, 'ces_storage_errors_total', labels);
    expect(d({ driver: 's3', kind: 'unavailable' })).toBe(2);
    expect(d({ driver: 'local', kind: 'full' })).toBe(1);
  });

  it('HTTP: unusual methods share `other`, requests without a route share `unmatched`', async () => {
    const before = await read();
    recordHttpRequest('PROPFIND', undefined, 404, 0.001);
    recordHttpRequest('BREW', undefined, 404, 0.001);
    recordHttpRequest('GET', '/api/v1/agent/:agentId', 200, 0.004);
    const after = await read();
    const d = (labels: Record<string, string>) =>
      valueOf(after, 'ces_http_requests_total', labels) - valueOf(before, 'ces_http_requests_total', labels);
    expect(d({ method: 'other', route: 'unmatched', status_code: '404' })).toBe(2);
    expect(d({ method: 'GET', route: '/api/v1/agent/:agentId', status_code: '200' })).toBe(1);
    expect(after.some((s) => s.labels.method === 'PROPFIND' || s.labels.method === 'BREW')).toBe(false);
  });
});
