// Composition of the identity domain (users, API keys, tokens) for the API process.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createApiKeysService, type ApiKeysService } from './api-keys.service.js';
import { createCredentialsEpoch, type CredentialsEpoch } from './credentials.js';
import { createIdentityRepository } from './identity.repository.js';
import { createTokensService, type TokensService } from './tokens.service.js';
import { createUsersService, type UsersService } from './users.service.js';

declare module 'fastify' {
  interface FastifyInstance {
    identity: { epoch: CredentialsEpoch; apiKeys: ApiKeysService; tokens: TokensService; users: UsersService };
  }
}

export default fp(async function identityModule(app: FastifyInstance) {
  const repo = createIdentityRepository(app.db);
  const epoch = createCredentialsEpoch({ redis: app.requestRedis, redisPrefix: app.config.redisPrefix });
  app.decorate('identity', {
    epoch,
    apiKeys: createApiKeysService({ repo, epoch, clock: app.clock, config: app.config }),
    tokens: createTokensService({ repo, epoch, clock: app.clock, config: app.config }),
    users: createUsersService({ repo }),
  });
});
