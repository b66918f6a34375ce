// Generates the Prisma client when it is missing (fresh clone), so `npm test` works right after `npm ci`.
import { execSync } from 'node:child_process';
import fs from 'node:fs';

if (!fs.existsSync(new URL('../src/generated/prisma/client.ts', import.meta.url))) {
  execSync('npx prisma generate', {
    stdio: 'inherit',
    env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: '/bin/false' },
  });
}
