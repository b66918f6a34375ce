// The layering of src/ (docs/decisions.md, "Boundaries"), checked by `npm run check:boundaries` in CI.
// Rules are by path, so files added later are covered without touching this file:
//   routes -> services (and schemas, lib); plugins wire services into Fastify;
//   services -> repositories, engine, queues, db, lib, schemas; jobs -> services, queues;
//   engine imports nothing of ours outside src/engine but src/storage (the Run files' drivers), and
//   storage imports nothing of ours; lib imports nothing of ours above it;
//   queues (BullMQ and Redis plumbing) -> lib only; schemas -> lib, engine (definition schema);
//   the Prisma client (src/generated) only from repositories and src/db; no cycles anywhere.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles make load order matter and layers meaningless.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'engine-imports-nothing-of-ours',
      severity: 'error',
      comment: 'The extraction engine knows nothing of HTTP, Prisma or our services; it writes through src/storage.',
      from: { path: '^src/engine/' },
      to: { path: '^src/', pathNot: '^src/(engine|storage)/' },
    },
    {
      name: 'storage-imports-nothing-of-ours',
      severity: 'error',
      comment: 'The storage drivers are shared by the engine, the worker and the API: they depend on none of them.',
      from: { path: '^src/storage/' },
      to: { path: '^src/', pathNot: '^src/storage/' },
    },
    {
      name: 'lib-is-the-bottom',
      severity: 'error',
      comment: 'lib/ holds small shared pieces and imports nothing of ours above it.',
      from: { path: '^src/lib/' },
      to: { path: '^src/', pathNot: '^src/lib/' },
    },
    {
      name: 'queues-only-on-lib',
      severity: 'error',
      comment: 'The queue plumbing is shared by the API and the worker: it must not depend on either.',
      from: { path: '^src/queues/' },
      to: { path: '^src/', pathNot: '^src/(queues|lib)/' },
    },
    {
      name: 'schemas-are-leaves',
      severity: 'error',
      comment: 'Schemas describe the wire; routes and services import them, not the other way round.',
      from: { path: '^src/schemas/' },
      to: { path: '^src/', pathNot: '^src/(schemas|lib|engine)/' },
    },
    {
      name: 'db-below-services',
      severity: 'error',
      comment: 'The data layer (client, failures, migrations) knows no domain.',
      from: { path: '^src/db/' },
      to: { path: '^src/(routes|plugins|services|jobs|queues)/' },
    },
    {
      name: 'services-below-http-and-jobs',
      severity: 'error',
      comment: 'Services hold the rules; they never reach up into HTTP or into the worker.',
      from: { path: '^src/services/' },
      to: { path: '^src/(routes|plugins|jobs)/|^src/(app|server|worker|cli)\\.ts$' },
    },
    {
      name: 'routes-only-translate-http',
      severity: 'error',
      comment: 'Routes call services; data access, queues and the engine are reached through them.',
      from: { path: '^src/routes/' },
      to: { path: '^src/(db|jobs|queues|engine|generated)/|\\.repository\\.ts$' },
    },
    {
      name: 'jobs-call-services',
      severity: 'error',
      comment: 'Workers call the same services as routes; they never reach into HTTP.',
      from: { path: '^src/jobs/' },
      to: { path: '^src/(routes|plugins)/|^src/(app|server)\\.ts$' },
    },
    {
      name: 'tools-only-from-the-cli',
      severity: 'error',
      comment: 'src/tools (the demo and benchmark seed) is reached from the CLI only, never from the service.',
      from: { path: '^src/', pathNot: '^src/tools/|^src/cli\\.ts$' },
      to: { path: '^src/tools/' },
    },
    {
      name: 'prisma-client-only-in-the-data-layer',
      severity: 'error',
      comment: 'Only repositories and src/db touch the generated Prisma client (types included).',
      from: { path: '^src/', pathNot: '^src/(db|generated)/|\\.repository\\.ts$' },
      to: { path: '^src/generated/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: ['node_modules', '^src/generated/'] },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js'],
    },
  },
};
