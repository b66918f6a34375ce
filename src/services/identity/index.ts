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

export default fp(
  async function identityModule(app: FastifyInstance) {
    const repo = createIdentityRepository(app.db);
    // Its own connection: a subscribed connection can issue nothing else. Reconnects forever; while it
    // is down nothing cached is trusted.
    const subscriber = app.redis.duplicate({ lazyConnect: true, maxRetriesPerRequest: null, autoResubscribe: false });
    const epoch = createCredentialsEpoch({ redis: app.redis, subscriber, redisPrefix: app.config.redisPrefix });
    await subscriber.connect().catch(() => undefined);
    // The first requests are served from the cache too (and counted as such by the round-trip test).
    app.addHook('onReady', async () => epoch.ready(1000));
    app.addHook('onClose', async () => subscriber.disconnect());
    app.decorate('identity', {
      epoch,
      apiKeys: createApiKeysService({ repo, epoch, clock: app.clock, config: app.config }),
      tokens: createTokensService({ repo, epoch, clock: app.clock, config: app.config }),
      users: createUsersService({ repo }),
    });
  },
  { name: 'identity', dependencies: ['infra'] },
);
