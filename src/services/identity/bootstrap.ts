// Creates an organization with its first admin, a default Space, initial credits and an API key.
// Used by the `bootstrap` CLI command (and by test fixtures, through the same code).
import type { Db } from '../../db/prisma.js';
import { createCreditsRepository } from '../billing/credits.repository.js';
import { issueApiKey } from './api-keys.service.js';
import { createIdentityRepository } from './identity.repository.js';
import { hashPassword } from './users.service.js';

export class BootstrapError extends Error {}

export interface BootstrapResult {
  organizationId: number;
  userId: number;
  spaceId: number;
  apiKey: string;
  email: string;
}

export async function bootstrapOrganization(
  db: Db,
  input: { org: string; email: string; password: string; credits: number; apiKeyDays: number; now: Date },
): Promise<BootstrapResult> {
  const repo = createIdentityRepository(db);
  const email = input.email.trim().toLowerCase();
  if (await repo.findUserByEmail(email)) throw new BootstrapError(`a user with email ${email} already exists`);
  const passwordHash = await hashPassword(input.password);
  const created = await repo.transaction(async (tx) => {
    const org = await repo.createOrganization(input.org, tx);
    const user = await repo.createUser({ organizationId: org.id, email, name: email, role: 'admin', passwordHash }, tx);
    const space = await repo.createSpace(
      { organizationId: org.id, name: 'Default', description: 'Default space', isDefaultAccess: true },
      tx,
    );
    const { key } = await issueApiKey(
      repo,
      {
        organizationId: org.id,
        userId: user.id,
        description: 'bootstrap',
        expiresAt: new Date(input.now.getTime() + input.apiKeyDays * 86_400_000),
      },
      tx,
    );
    return { org, user, space, key };
  });
  if (input.credits > 0) {
    await createCreditsRepository(db).grant({
      organizationId: created.org.id,
      amount: input.credits,
      expiresAt: null,
      message: 'Initial credits',
      at: input.now,
    });
  }
  return {
    organizationId: created.org.id,
    userId: created.user.id,
    spaceId: created.space.id,
    apiKey: created.key,
    email,
  };
}
