// Operator commands: migrate, bootstrap, create-api-key, grant-credits, credits, seed.
// Results go to stdout as one JSON object; logs go to stderr.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfigOrExit } from './config.js';
import { isDatabaseUnreachable, isSchemaMissing } from './db/failures.js';
import { createPrisma } from './db/prisma.js';
import { migrate } from './db/migrate.js';
import { systemClock } from './lib/clock.js';
import { createCreditsRepository } from './services/billing/credits.repository.js';
import { issueApiKey } from './services/identity/api-keys.service.js';
import { createIdentityRepository } from './services/identity/identity.repository.js';
import { BootstrapError, bootstrapOrganization } from './services/identity/bootstrap.js';

const log = (msg: string) => process.stderr.write(`${msg}\n`);
const out = (obj: unknown) => process.stdout.write(`${JSON.stringify(obj)}\n`);

/** The command was given wrong: its message is followed by the usage text. */
class UsageError extends Error {}
/** The command was understood but cannot be done (a user already exists, no such organization): the message alone. */
class RefusedError extends Error {}

/** Prisma's messages start with the call site; the last line says what happened. */
const lastLine = (err: unknown) =>
  String((err as Error).message ?? err)
    .split('\n')
    .filter(Boolean)
    .pop();

/** The first line of standard input (a trailing newline is not part of the password). */
async function readPasswordFromStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += chunk;
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0] ?? '';
}

/**
 * How to run this CLI where it runs now: `npm run cli --` under npm, `node dist/cli.js` in the
 * container (there is no npm script there), `node --import tsx src/cli.ts` from a checkout.
 */
function invocation(): string {
  if (process.env.npm_lifecycle_event === 'cli') return 'npm run cli --';
  const script = path.relative(process.cwd(), process.argv[1] ?? '') || 'dist/cli.js';
  return script.endsWith('.ts') ? `node --import tsx ${script}` : `node ${script}`;
}
const CLI = invocation();

const USAGE = `usage: ${CLI} <command> [options]
  migrate                                   apply pending database migrations
  bootstrap --org NAME --email EMAIL [--password-stdin | --password PW] [--credits N]
                                            create an organization, admin, default Space, credits and an API key;
                                            the password comes from BOOTSTRAP_PASSWORD, standard input
                                            (--password-stdin) or --password (visible in the process list)
  create-api-key --email EMAIL [--description TEXT] [--days N]
  grant-credits --org ID --amount N [--expires ISO] [--message TEXT]
                                            add a credit grant (recorded as a Grant transaction)
  credits --org ID [--limit N]              an organization's balance, grants and latest N (default 20) ledger entries
  seed --agents N [--org ID] [--spaces N]   fill an organization with N agents (demos, benchmarks)`;

async function main(argv: string[]) {
  const [command, ...rest] = argv;
  const config = loadConfigOrExit();
  const opts = (spec: Record<string, { type: 'string' | 'boolean' }>) =>
    parseArgs({ args: rest, options: spec, allowPositionals: false, strict: true }).values as Record<
      string,
      string | undefined
    >;

  switch (command) {
    case 'migrate': {
      const { applied } = await migrate(config.databaseUrl, { log });
      log(applied.length ? `applied ${applied.length} migration(s)` : 'database is up to date');
      out({ applied });
      return;
    }
    case 'bootstrap': {
      const o = opts({
        org: { type: 'string' },
        email: { type: 'string' },
        password: { type: 'string' },
        'password-stdin': { type: 'boolean' },
        credits: { type: 'string' },
      });
      if (!o.org || !o.email) throw new UsageError('bootstrap needs --org and --email');
      // Arguments are visible to every user of the machine (ps); the environment and stdin are not.
      const password = o['password-stdin']
        ? await readPasswordFromStdin()
        : (o.password ?? process.env.BOOTSTRAP_PASSWORD);
      if (!password)
        throw new UsageError(
          'bootstrap needs a password: set BOOTSTRAP_PASSWORD, or pass --password-stdin and write it to standard input',
        );
      if (password.length < 8) throw new UsageError('the password must be at least 8 characters');
      const credits = o.credits === undefined ? 1000 : Number(o.credits);
      if (!Number.isFinite(credits) || credits < 0) throw new UsageError('--credits must be a non-negative number');
      const db = createPrisma(config.databaseUrl, { max: 2 });
      try {
        const result = await bootstrapOrganization(db, {
          org: o.org,
          email: o.email,
          password,
          credits,
          apiKeyDays: config.apiKeyDefaultDays,
          now: systemClock.now(),
        });
        log(`bootstrapped organization ${result.organizationId} with admin ${result.email}`);
        out(result);
      } finally {
        await db.$disconnect();
      }
      return;
    }
    case 'create-api-key': {
      const o = opts({ email: { type: 'string' }, description: { type: 'string' }, days: { type: 'string' } });
      if (!o.email) throw new UsageError('create-api-key needs --email');
      const days = o.days === undefined ? config.apiKeyDefaultDays : Number(o.days);
      if (!Number.isInteger(days) || days < 1) throw new UsageError('--days must be a positive integer');
      const db = createPrisma(config.databaseUrl, { max: 2 });
      try {
        const repo = createIdentityRepository(db);
        const user = await repo.findUserByEmail(o.email);
        if (!user) throw new RefusedError(`no user with email ${o.email}`);
        const { row, key } = await issueApiKey(repo, {
          organizationId: user.organizationId,
          userId: user.id,
          description: o.description ?? '',
          expiresAt: new Date(Date.now() + days * 86_400_000),
        });
        out({ id: row.id, userId: user.id, apiKey: key, expiresAt: row.expiresAt.toISOString() });
      } finally {
        await db.$disconnect();
      }
      return;
    }
    case 'grant-credits': {
      const o = opts({
        org: { type: 'string' },
        amount: { type: 'string' },
        expires: { type: 'string' },
        message: { type: 'string' },
      });
      const orgId = Number(o.org);
      const amount = Number(o.amount);
      if (!Number.isInteger(orgId) || orgId < 1) throw new UsageError('grant-credits needs --org ID');
      // Exact decimals only: the credit columns keep 6 decimal places.
      if (!/^\d{1,12}(\.\d{1,6})?$/.test(o.amount ?? '') || amount <= 0)
        throw new UsageError('--amount must be a positive number with at most 6 decimal places');
      const expiresAt = o.expires ? new Date(o.expires) : null;
      if (expiresAt && Number.isNaN(expiresAt.getTime())) throw new UsageError('--expires must be an ISO date-time');
      const db = createPrisma(config.databaseUrl, { max: 2 });
      try {
        if (!(await createIdentityRepository(db).findOrganization(orgId)))
          throw new RefusedError(`no organization ${orgId}`);
        const { grant, balance } = await createCreditsRepository(db).grant({
          organizationId: orgId,
          amount: o.amount!,
          expiresAt,
          message: o.message ?? 'Credits granted',
          at: new Date(),
        });
        out({
          grantId: grant.id,
          organizationId: orgId,
          amount,
          expiresAt: expiresAt?.toISOString() ?? null,
          availableCredits: balance,
        });
      } finally {
        await db.$disconnect();
      }
      return;
    }
    case 'credits': {
      const o = opts({ org: { type: 'string' }, limit: { type: 'string' } });
      const orgId = Number(o.org);
      const limit = o.limit === undefined ? 20 : Number(o.limit);
      if (!Number.isInteger(orgId) || orgId < 1) throw new UsageError('credits needs --org ID');
      if (!Number.isInteger(limit) || limit < 0 || limit > 10_000)
        throw new UsageError('--limit must be an integer from 0 to 10000');
      const db = createPrisma(config.databaseUrl, { max: 2 });
      try {
        if (!(await createIdentityRepository(db).findOrganization(orgId)))
          throw new RefusedError(`no organization ${orgId}`);
        out(await createCreditsRepository(db).statement(orgId, new Date(), limit));
      } finally {
        await db.$disconnect();
      }
      return;
    }
    case 'seed': {
      const { runSeed } = await import('./tools/seed.js').catch(() => ({ runSeed: null }));
      if (!runSeed) throw new RefusedError('seed is not available in this build');
      const o = opts({ agents: { type: 'string' }, org: { type: 'string' }, spaces: { type: 'string' } });
      out(
        await runSeed(
          config,
          {
            agents: Number(o.agents ?? 100),
            org: o.org ? Number(o.org) : undefined,
            spaces: o.spaces ? Number(o.spaces) : undefined,
          },
          log,
        ),
      );
      return;
    }
    default:
      throw new UsageError(command ? `unknown command ${command}` : 'no command given');
  }
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (err) => {
    // Both exit 2 (the request was refused, nothing changed); only a wrong invocation gets the usage text.
    if (err instanceof UsageError || String((err as { code?: string }).code).startsWith('ERR_PARSE_ARGS_')) {
      log(`error: ${(err as Error).message}\n${USAGE}`);
      process.exit(2);
    }
    if (err instanceof RefusedError || err instanceof BootstrapError) {
      log(`error: ${err.message}`);
      process.exit(2);
    }
    if (isSchemaMissing(err)) {
      log(`error: the database has no tables yet: run migrate first (\`${CLI} migrate\`)`);
    } else if (isDatabaseUnreachable(err)) {
      log(`error: PostgreSQL is unreachable (${lastLine(err)}); check DATABASE_URL and that the server is running`);
    } else {
      log(`error: ${(err as Error).message}`);
    }
    process.exit(1);
  },
);
