// Vite builds the console into console/dist, served by the API at /console
// (src/plugins/external/console.ts). Preact's JSX runtime through esbuild; no plugin needed.
// TanStack Query is written for React: `react` resolves to preact/compat, Preact's React layer.
import path from 'node:path';
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  resolve: {
    alias: {
      react: 'preact/compat',
      'react-dom': 'preact/compat',
      'react/jsx-runtime': 'preact/jsx-runtime',
    },
  },
  build: {
    outDir: path.join(import.meta.dirname, 'dist'),
    emptyOutDir: true,
    // The polyfill would be inlined; the strict CSP (no inline scripts) forbids that, and every
    // browser the console targets supports modulepreload.
    modulePreload: { polyfill: false },
    target: 'es2022',
    assetsInlineLimit: 0,
    rollupOptions: {
      // TanStack Query marks its modules "use client" (React Server Components); meaningless in a bundle.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
});
