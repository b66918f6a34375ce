// Builds the migrated template database once before any test file, and after the run drops the
// run's databases and the template so nothing is left behind.
import crypto from 'node:crypto';
import { dropRunDatabases, ensureTemplate } from './db.js';

const run = crypto.randomBytes(3).toString('hex');

export async function setup() {
  // Test workers are forked after this and inherit the variable.
  process.env.CXS_TEST_RUN = run;
  await ensureTemplate();
}

export async function teardown() {
  await dropRunDatabases(run);
}
