// OpenAPI 3 description served at /swagger/v1/swagger.json, Swagger UI at /swagger.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config.js';

export default fp(async function swaggerPlugin(app: FastifyInstance, opts: { config: Config }) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Cloud Extraction Service API',
        version: 'v1',
        description:
          'Agents in Spaces, their Runs, Schedules, analytics, credits billing and the Agent Builder. ' +
          'Authenticate with `Authorization: ApiKey <key>` or `Authorization: Bearer <jwt>` (from POST /oauth/token). ' +
          'Errors: 400 answers BadRequestError; every other error answers ProblemDetails (RFC 7807); both carry `errorCode` (see the ErrorCode schema).',
      },
      // Without PUBLIC_URL, "/" lets the Swagger UI call the host it was loaded from.
      servers: [{ url: opts.config.publicUrlConfigured ? opts.config.publicUrl : '/' }],
      components: {
        securitySchemes: {
          ApiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: 'Send `Authorization: ApiKey <API_KEY>`.',
          },
          Bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from POST /oauth/token.' },
        },
      },
      security: [{ ApiKey: [] }, { Bearer: [] }],
      tags: [
        { name: 'Agents' },
        { name: 'Runs' },
        { name: 'Schedules' },
        { name: 'Spaces' },
        { name: 'Analytics' },
        { name: 'Billing' },
        { name: 'Agent Builder' },
        { name: 'Users' },
        { name: 'Proxy Pools' },
        { name: 'OAuth' },
        { name: 'Health' },
      ],
    },
    refResolver: {
      buildLocalReference(json, _baseUri, _fragment, i) {
        return typeof json.$id === 'string' ? json.$id : `def-${i}`;
      },
    },
  });
  // The UI's page loads its assets relatively (./static/...): serve it only at /swagger/.
  app.addHook('onRequest', async (request, reply) => {
    const [path, query] = request.url.split('?');
    if (path === '/swagger') return reply.redirect(`/swagger/${query ? `?${query}` : ''}`, 301);
  });
  await app.register(swaggerUi, { routePrefix: '/swagger', uiConfig: { url: '/swagger/v1/swagger.json' } as never });
  app.get('/swagger/v1/swagger.json', { schema: { hide: true }, config: { public: true } }, async () => app.swagger());
});
