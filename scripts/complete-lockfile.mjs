// The registry these machines reach does not serve some platform-specific optional packages
// (darwin, win32, android … builds of rollup, msgpackr-extract and the like), so `npm install`
// leaves them out of package-lock.json and `npm ci` then refuses the lock ("Missing: … from lock
// file"). This adds a lock entry for each such optional dependency, with the os/cpu it is built
// for, so npm skips it on other platforms exactly as it would with a complete lock.
// Run after `npm install`: node scripts/complete-lockfile.mjs
import fs from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const packages = lock.packages;

const OS = [
  'darwin',
  'linux',
  'win32',
  'android',
  'freebsd',
  'openbsd',
  'netbsd',
  'sunos',
  'aix',
  'openharmony',
  'cygwin',
];
const CPU = ['arm64', 'x64', 'arm', 'ia32', 'ppc64', 'riscv64', 's390x', 'loong64', 'mips64el', 'wasm32', 'x32'];

function platformOf(name) {
  const base = name.split('/').pop();
  const parts = base.split('-');
  const os =
    parts.find((p) => OS.includes(p)) ??
    (parts.includes('win') || parts.includes('windows') ? 'win32' : parts.includes('macos') ? 'darwin' : undefined);
  const cpu =
    parts.find((p) => CPU.includes(p)) ??
    (parts.includes('x86') ? 'ia32' : parts.includes('ppc') ? 'ppc64' : undefined);
  const libc = parts.includes('musl')
    ? 'musl'
    : parts.includes('gnu') || parts.includes('gnueabihf') || parts.includes('msvc')
      ? undefined
      : undefined;
  return { os, cpu, libc: parts.includes('musl') ? ['musl'] : parts.includes('gnu') ? ['glibc'] : libc };
}

let added = 0;
for (const [path, meta] of Object.entries(packages)) {
  const optional = meta.optionalDependencies ?? {};
  for (const [dep, spec] of Object.entries(optional)) {
    // Where npm would place it: next to the parent's own node_modules, else hoisted to the top.
    const nested = `${path ? path + '/' : ''}node_modules/${dep}`;
    const top = `node_modules/${dep}`;
    if (packages[nested] || packages[top]) continue;
    const version = String(spec).replace(/^[\^~=]/, '');
    if (!/^\d+\.\d+\.\d+/.test(version)) continue;
    const { os, cpu, libc } = platformOf(dep);
    if (!os && !cpu) continue;
    packages[top] = {
      version,
      optional: true,
      ...(cpu ? { cpu: [cpu] } : {}),
      ...(os ? { os: [os] } : {}),
      ...(libc ? { libc } : {}),
    };
    added++;
  }
}
const sorted = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
lock.packages = sorted;
fs.writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
console.error(`complete-lockfile: added ${added} platform-specific optional entries`);
