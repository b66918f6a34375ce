// Vite builds the console (issue 25) into console/dist, served by the API at /console
// (src/plugins/external/console.ts). Preact's JSX runtime through esbuild; no plugin needed.
import path from 'node:path';
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: path.join(import.meta.dirname, 'dist'),
    emptyOutDir: true,
    // The polyfill would be inlined; the strict CSP (no inline scripts) forbids that, and every
    // browser the console targets supports modulepreload.
    modulePreload: { polyfill: false },
    target: 'es2022',
    assetsInlineLimit: 0,
  },
});
