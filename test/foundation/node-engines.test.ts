// The Node.js versions package.json (and README.md) promise are ones every installed package accepts:
// each package the lock file installs for production declares an `engines.node` range that covers the
// whole of ours. Development-only packages are checked too, except those this project never runs.
import fs from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

interface LockEntry {
  version?: string;
  dev?: boolean;
  engines?: { node?: string } | string[];
}

const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, LockEntry> };
const ours = pkg.engines.node;

// `prisma dev` (a local Prisma Postgres server) is the only user of this package; the project runs
// `prisma generate` and its own migrator, never `prisma dev`.
const NEVER_RUN = new Set(['node_modules/@prisma/streams-local']);

/** Packages whose declared Node.js range leaves out part of ours. */
function narrower(filter: (entry: LockEntry) => boolean): string[] {
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && filter(entry) && !NEVER_RUN.has(path))
    .flatMap(([path, entry]) => {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      return range && !semver.subset(ours, range) ? [`${path}@${entry.version}: node ${range}`] : [];
    });
}

describe('supported Node.js versions', () => {
  it('package.json names a valid range, and README.md states the same one', () => {
    expect(semver.validRange(ours)).not.toBeNull();
    expect(fs.readFileSync('README.md', 'utf8')).toContain(`\`${ours}\``);
  });

  it('every production dependency accepts every version of that range', () => {
    expect(narrower((entry) => !entry.dev)).toEqual([]);
  });

  it('every development tool the project runs accepts it too', () => {
    expect(narrower((entry) => entry.dev === true)).toEqual([]);
  });
});
