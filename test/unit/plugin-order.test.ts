// Plugins declare what they need (fastify-plugin `dependencies`): a wrong registration order fails
// when the app starts, instead of being remembered in a comment.
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import authPlugin from '../../src/plugins/app/auth.js';
import builderModule from '../../src/services/builder/index.js';

describe('plugin dependencies', () => {
  it('refuses to start the auth plugin before the identity and rate-limit plugins', async () => {
    const app = Fastify({ logger: false });
    app.register(authPlugin);
    await expect(app.ready()).rejects.toThrow(/dependency 'identity' of plugin 'auth' is not registered/);
  });

  it('refuses to start a domain module before the modules whose services it uses', async () => {
    const app = Fastify({ logger: false });
    app.register(builderModule);
    await expect(app.ready()).rejects.toThrow(/dependency 'infra' of plugin 'builder' is not registered/);
  });
});
