// Imported first by the worker, before anything compiles WebAssembly. Prisma 7's query compiler is a
// WebAssembly module; V8 first compiles it with its baseline compiler (Liftoff) and then re-compiles
// hot functions with its optimizing compiler, keeping both: about 50 MB more resident memory. The
// worker runs few queries per second, so baseline code is enough and its peak stays under 200 MB
// (docs/benchmarks-history.md, "Run lifecycle: memory"). The API, whose CPU matters more, keeps the default.
import v8 from 'node:v8';

v8.setFlagsFromString('--liftoff-only');
