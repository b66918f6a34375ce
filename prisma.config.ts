import { defineConfig } from 'prisma/config';

// The CLI reads the database URL from here (Prisma 7); the app passes it to the pg adapter itself.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/cloud_extraction' },
});
