// ESLint (flat config) with typescript-eslint's type-aware rules; formatting is Prettier's alone
// (eslint-config-prettier turns off every rule that could disagree with it).
import js from '@eslint/js';
import globals from 'globals';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      // The sources compiled for the processes a test run starts (removed at its end).
      'dist-test-*/',
      'coverage/',
      'storage/',
      '.bench/',
      'src/generated/',
      'node_modules/',
      'console/dist/',
      'console/src/api/schema.d.ts',
      'sdk/typescript/dist/',
      'sdk/typescript/docs/',
      'sdk/typescript/src/openapi.ts',
      'sdk/python/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js', '*.mjs', 'bench/*.mjs', 'scripts/*.mjs', 'scripts/*.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': [
        'error',
        { checksVoidReturn: { arguments: false, properties: false } },
      ],
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      'prefer-const': ['error', { destructuring: 'all' }],
      // Fastify plugins and hooks are async functions by convention, awaiting or not.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Tests and benchmarks read JSON answers (`any`) all the time; the promise and import rules stay.
    files: ['test/**', 'bench/**', 'scripts/**', 'sdk/typescript/test/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-loss-of-precision': 'off',
      // Casting JSON answers, passing methods of fakes, and scratch variables in measurements are fine here.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
      '@typescript-eslint/no-base-to-string': 'off',
      'preserve-caught-error': 'off',
      'no-useless-assignment': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs', 'bench/**', 'scripts/**', 'sdk/typescript/scripts/**'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    // The console's event handlers are async and catch their own errors (shown in the page).
    files: ['console/src/**'],
    rules: {
      '@typescript-eslint/no-misused-promises': [
        'error',
        { checksVoidReturn: { arguments: false, properties: false, attributes: false } },
      ],
    },
  },
  prettier,
  {
    // domhandler's node `type` is a string enum that the inference compares with its literal values.
    files: ['src/services/builder/inference/**'],
    rules: { '@typescript-eslint/no-unsafe-enum-comparison': 'off' },
  },
);
