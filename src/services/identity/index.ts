// Composition of the identity domain (users, API keys, tokens) for the API process.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createApiKeysService, type ApiKeysService } from './api-keys.service.js';
import { createIdentityRepository } from './identity.repository.js';
import { createTokensService, type TokensService } from './tokens.service.js';
import { createUsersService, type UsersService } from './users.service.js';

declare module 'fastify' {
  interface FastifyInstance {
    identity: { apiKeys: ApiKeysService; tokens: TokensService; users: UsersService };
  }
}

export default fp(async function identityModule(app: FastifyInstance) {
  const repo = createIdentityRepository(app.db);
  app.decorate('identity', {
    apiKeys: createApiKeysService({ repo, redis: app.redis, clock: app.clock, config: app.config }),
    tokens: createTokensService({ repo, clock: app.clock, config: app.config }),
    users: createUsersService({ repo }),
  });
});
