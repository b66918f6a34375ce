// How the console's browser tests and bench start Debian's Chromium headless (no vitest import here,
// so bench/console.ts can use it too).
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
