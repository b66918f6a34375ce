// The app's live OpenAPI document, built in-process (no server, no database queries): the one source
// of the console's and the SDKs' generated types.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

export async function liveDocument(): Promise<Record<string, unknown>> {
  const storageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cxs-types-'));
  // The document depends on the routes' schemas only; nothing here connects until a request needs it.
  const config = loadConfig({
    DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/unused',
    REDIS_URL: 'redis://127.0.0.1:6379',
    ENCRYPTION_KEY: '0'.repeat(64),
    STORAGE_DIR: storageDir,
    LOG_LEVEL: 'silent',
    METRICS_PORT: '0',
  });
  const app = await buildApp(config, { logger: false });
  try {
    await app.ready();
    return app.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
    fs.rmSync(storageDir, { recursive: true, force: true });
  }
}
