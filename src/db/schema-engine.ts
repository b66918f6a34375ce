// Prisma's schema engine, compiled to WebAssembly and driven through the pg driver adapter.
/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-member-access -- the wasm bindings are untyped */
// The native schema-engine binary cannot be downloaded on our machines, so this is how we produce
// migration SQL exactly as `prisma migrate diff` would and how tests prove the migrated database
// matches schema.prisma. Development tooling only: the running service never loads it.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';

const require = createRequire(import.meta.url);

type DiffTarget = { tag: 'empty' } | { tag: 'schemaDatamodel'; files: Array<{ path: string; content: string }> };

interface WasmSchemaEngine {
  diff(params: {
    from: DiffTarget;
    to: DiffTarget;
    script: boolean;
    exitCode: boolean | null;
    filters: { externalTables: string[]; externalEnums: string[] };
  }): Promise<{ exitCode: number; stdout: string | null }>;
  free(): void;
}

async function loadWasm() {
  // The engine reports Rust panics through this global before throwing, and fails without it; the
  // error it then throws is what migrate reports.
  const g = globalThis as { PRISMA_WASM_PANIC_REGISTRY?: { set_message(m: string): void } };
  g.PRISMA_WASM_PANIC_REGISTRY ??= { set_message: () => {} };
  const bgPath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
  const pkgDir = path.dirname(bgPath);
  const bg = await import(pathToFileURL(bgPath).href);
  const bytes = fs.readFileSync(path.join(pkgDir, 'schema_engine_bg.wasm'));
  const wasm = (
    globalThis as unknown as {
      WebAssembly: { instantiate(b: Buffer, i: object): Promise<{ instance: { exports: unknown } }> };
    }
  ).WebAssembly;
  const { instance } = await wasm.instantiate(bytes, { './schema_engine_bg.js': bg });
  bg.__wbg_set_wasm(instance.exports);
  (instance.exports as { __wbindgen_start(): void }).__wbindgen_start();
  return bg as {
    SchemaEngine: { new: (o: unknown, log: (m: string) => void, adapter: unknown) => Promise<WasmSchemaEngine> };
  };
}

let wasmModule: Awaited<ReturnType<typeof loadWasm>> | undefined;

export async function openSchemaEngine(databaseUrl: string, schema: string) {
  wasmModule ??= await loadWasm();
  const factory = new PrismaPg({ connectionString: databaseUrl });
  const engine = await wasmModule.SchemaEngine.new(
    { datamodels: [['schema.prisma', schema]] },
    () => {},
    bindMigrationAwareSqlAdapterFactory(factory),
  );
  const filters = { externalTables: [], externalEnums: [] };
  const datamodel = (content: string): DiffTarget => ({
    tag: 'schemaDatamodel',
    files: [{ path: 'schema.prisma', content }],
  });
  return {
    /** SQL that takes an empty database to `schema`. */
    async scriptFromEmpty(): Promise<string> {
      const res = await engine.diff({
        from: { tag: 'empty' },
        to: datamodel(schema),
        script: true,
        exitCode: null,
        filters,
      });
      return res.stdout ?? '';
    },
    /** SQL that takes a database described by `fromSchema` to `schema` ('' when they match). */
    async scriptBetween(fromSchema: string): Promise<string> {
      const res = await engine.diff({
        from: datamodel(fromSchema),
        to: datamodel(schema),
        script: true,
        exitCode: null,
        filters,
      });
      return res.stdout ?? '';
    },
    close() {
      engine.free();
    },
  };
}
