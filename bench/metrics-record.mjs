// The CPU cost of the metrics an API request records (one HTTP counter, one histogram observation,
// one rate-limit decision), measured in-process: `npm run build && node bench/metrics-record.mjs`.
// CPU time (process.cpuUsage), so a busy machine slows it less than it slows wall-clock figures.
import path from 'node:path';

const dist = path.resolve(process.env.BENCH_DIST ?? 'dist');
const { recordHttpRequest, recordRateLimitDecision } = await import(path.join(dist, 'lib/metrics.js'));
const N = 1_000_000;
for (let i = 0; i < 100_000; i++) recordHttpRequest('GET', '/api/v1/agent/:agentId', 200, 0.003);
const c0 = process.cpuUsage();
for (let i = 0; i < N; i++) {
  recordHttpRequest('GET', '/api/v1/agent/:agentId', 200, 0.003);
  recordRateLimitDecision('request', 'allowed');
}
const c = process.cpuUsage(c0);
console.log(`metrics recorded per request: ${(((c.user + c.system) / N) * 1000).toFixed(0)} ns CPU`);
