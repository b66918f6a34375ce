// Scraping a process's metrics listener and reading the Prometheus text format.
import { execFileSync, spawnSync } from 'node:child_process';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export function parseMetrics(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

export async function scrape(port: number): Promise<{ text: string; samples: Sample[] }> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  if (res.status !== 200) throw new Error(`metrics: HTTP ${res.status}`);
  const text = await res.text();
  return { text, samples: parseMetrics(text) };
}

/** The value of one series (0 when it does not exist yet); `labels` must match exactly those given. */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const want = Object.entries(labels);
  const s = samples.find((x) => x.name === name && want.every(([k, v]) => x.labels[k] === v));
  return s?.value ?? 0;
}

/** promtool's path, when the `prometheus` package is installed. */
export function promtool(): string | null {
  const which = spawnSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' });
  return which.status === 0 ? which.stdout.trim() : null;
}

/** What `promtool check metrics` says about the text (empty: no problem). */
export function promtoolCheck(bin: string, text: string): string {
  try {
    return execFileSync(bin, ['check', 'metrics'], { input: text, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return `${e.stdout ?? ''}${e.stderr ?? ''}` || String(err);
  }
}
