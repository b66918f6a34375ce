// `npm run cli -- seed --agents N [--org ID] [--spaces N]`: fills an organization with Spaces and N
// Agents (each with its version-1 definition; about a third with one finished Run) for demos and
// benchmarks. Rows are written in chunks of 5000, one bulk INSERT per table and one transaction per
// chunk (see AgentsRepository.bulkCreateAgents).
import crypto from 'node:crypto';
import type { Config } from '../config.js';
import { createPrisma, type Db } from '../db/prisma.js';
import { randomSecret } from '../lib/crypto.js';
import { bootstrapOrganization } from '../services/identity/bootstrap.js';
import { createIdentityRepository } from '../services/identity/identity.repository.js';
import { definitionSize, statusOf } from '../services/agents/agent-definition.js';
import { createAgentsRepository, type BulkAgent } from '../services/agents/agents.repository.js';
import { RunStatus } from '../services/runs/status-machine.js';

export interface SeedOptions {
  agents: number;
  /** An existing organization to fill; by default a new one is bootstrapped. */
  org?: number;
  /** Spaces to create and spread the Agents over (default 10). */
  spaces?: number;
}

export interface SeedResult {
  organizationId: number;
  spaceIds: number[];
  agents: number;
  /** An admin API key, when the seed created the organization. */
  apiKey?: string;
}

export const SEED_CHUNK = 5000;
const MAX_AGENTS = 5_000_000;
const MAX_SPACES = 1000;

const ADJECTIVES = [
  'Daily',
  'Weekly',
  'Fast',
  'Deep',
  'Retail',
  'Travel',
  'Market',
  'Product',
  'Job',
  'News',
  'Price',
  'Review',
];
const NOUNS = [
  'books',
  'shoes',
  'hotels',
  'flights',
  'cars',
  'phones',
  'laptops',
  'listings',
  'jobs',
  'articles',
  'stocks',
  'recipes',
];
// Terminal statuses a finished Run can leave, Success twice as often as the others.
const RUN_STATUSES = [RunStatus.Success, RunStatus.Success, RunStatus.Completed, RunStatus.Failure, RunStatus.Stopped];

function definitionFor(i: number, invalid: boolean) {
  const noun = NOUNS[i % NOUNS.length];
  return {
    startUrl: `https://shop-${i % 97}.example.com/${noun}?q={{query}}&page=1`,
    parameters: [
      { name: 'query', defaultValue: noun, description: 'Search words' },
      { name: 'token', defaultValue: `seed-secret-${i % 13}`, encrypted: true, description: 'Site API token' },
    ],
    list: {
      selector: '.item',
      fields: [
        { name: 'title', selector: 'h2', transform: 'trim', required: true },
        { name: 'price', selector: '.price', transform: 'number' },
        { name: 'url', selector: 'a', attribute: 'href', transform: 'absoluteUrl' },
      ],
    },
    next: { selector: 'a.next', maxPages: 5 },
    // One Agent in fifty asks for a column no field produces: an Invalid Agent (validationStatus 2).
    export: {
      format: 'csv',
      columns: invalid
        ? [{ name: 'title' }, { name: 'sku', required: true }]
        : [{ name: 'title' }, { name: 'price' }, { name: 'url' }],
    },
  };
}

async function seedOwner(db: Db, config: Config, opts: SeedOptions, log: (msg: string) => void) {
  if (opts.org !== undefined) {
    const identity = createIdentityRepository(db);
    const org = await identity.findOrganization(opts.org);
    if (!org) throw new Error(`no organization ${opts.org}`);
    const owner = await identity.findOrganizationOwner(org.id);
    if (!owner) throw new Error(`organization ${org.id} has no user to own the agents`);
    return { organizationId: org.id, userId: owner.id, userName: owner.name, apiKey: undefined as string | undefined };
  }
  const tag = crypto.randomBytes(4).toString('hex');
  const created = await bootstrapOrganization(db, {
    org: `Seed ${tag}`,
    email: `seed-${tag}@example.com`,
    password: randomSecret('pw_'),
    credits: 1000,
    apiKeyDays: config.apiKeyDefaultDays,
    now: new Date(),
  });
  log(`created organization ${created.organizationId} (admin ${created.email})`);
  return {
    organizationId: created.organizationId,
    userId: created.userId,
    userName: created.email,
    apiKey: created.apiKey,
  };
}

export async function runSeed(
  config: Config,
  opts: SeedOptions,
  log: (msg: string) => void = () => {},
): Promise<SeedResult> {
  const total = opts.agents;
  const spaceCount = opts.spaces ?? 10;
  if (!Number.isInteger(total) || total < 0 || total > MAX_AGENTS)
    throw new Error(`--agents must be an integer from 0 to ${MAX_AGENTS}`);
  if (!Number.isInteger(spaceCount) || spaceCount < 1 || spaceCount > MAX_SPACES)
    throw new Error(`--spaces must be an integer from 1 to ${MAX_SPACES}`);

  const db = createPrisma(config.databaseUrl, { max: 4 });
  try {
    const repo = createAgentsRepository(db);
    const owner = await seedOwner(db, config, opts, log);
    const { organizationId } = owner;
    const tag = crypto.randomBytes(3).toString('hex');
    const spaces = await createIdentityRepository(db).createSpaces(
      Array.from({ length: spaceCount }, (_, i) => ({
        organizationId,
        name: `Seed space ${tag}-${i + 1}`,
        description: `Seeded space ${i + 1}`,
      })),
    );
    const spaceIds = spaces.map((s) => s.id);

    const validStatus = statusOf(definitionFor(0, false)).validationStatus;
    const invalidStatus = statusOf(definitionFor(0, true)).validationStatus;
    const now = Date.now();
    const started = Date.now();

    for (let from = 0; from < total; from += SEED_CHUNK) {
      const count = Math.min(SEED_CHUNK, total - from);
      const rows: BulkAgent[] = Array.from({ length: count }, (_, k) => {
        const i = from + k;
        const invalid = i % 50 === 49;
        // Spread over the past year so that date sorts and filters see varied data.
        const created = new Date(now - ((i * 7919) % 365) * 86_400_000 - (i % 86_400) * 1000);
        const lastActivity = new Date(Math.min(now, created.getTime() + ((i * 104_729) % 30) * 86_400_000));
        const definition = definitionFor(i, invalid);
        return {
          organizationId,
          spaceId: spaceIds[i % spaceIds.length],
          userId: owner.userId,
          userName: owner.userName,
          name: `${ADJECTIVES[(i * 7) % ADJECTIVES.length]} ${NOUNS[i % NOUNS.length]} ${i + 1}`,
          description: `Collects ${NOUNS[(i * 5) % NOUNS.length]} from shop ${i % 97}`,
          configType: i % 10 < 7 ? 1 : (i % 10) - 5, // 70% Agent, 10% each of 2, 3, 4
          startUrl: definition.startUrl,
          validationStatus: invalid ? invalidStatus : validStatus,
          // Every third Agent has run once (a Run row is written with this status).
          status: i % 3 === 0 ? RUN_STATUSES[i % RUN_STATUSES.length] : null,
          lastActivity,
          created,
          updated: lastActivity,
          definition,
          comments: 'Seeded',
          fileSize: definitionSize(definition),
        };
      });
      await repo.transaction((tx) => repo.bulkCreateAgents(rows, tx), { timeout: 120_000, maxWait: 30_000 });
      log(`seeded ${from + count}/${total} agents`);
    }

    await repo.vacuumAnalyze();
    log(`seeded ${total} agents in ${spaceIds.length} spaces in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return { organizationId, spaceIds, agents: total, ...(owner.apiKey !== undefined && { apiKey: owner.apiKey }) };
  } finally {
    await db.$disconnect();
  }
}
