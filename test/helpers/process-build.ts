// The service's sources compiled once per test run for the processes the tests start (servers,
// workers, the CLI, and the run processes and parse threads those fork): under the tsx loader every
// such process spent about 1.5 s more CPU loading the same modules, and the suite starts hundreds.
// esbuild is what tsx transforms with, file by file, so the code that runs is the same. The output sits
// one level under the repository, as dist/ does, so paths the code finds from its own location
// (migrations, the console build) resolve as they do in production.
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Compiles src/ into a directory of its own for run `run`; returns that directory. */
export async function buildForProcesses(run: string): Promise<string> {
  const outdir = path.join(ROOT, `dist-test-${run}`);
  await build({
    entryPoints: sources(path.join(ROOT, 'src')),
    outdir,
    outbase: path.join(ROOT, 'src'),
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  return outdir;
}

export function removeBuild(outdir: string): void {
  fs.rmSync(outdir, { recursive: true, force: true });
}
