// OpenAPI 3 description served at /swagger/v1/swagger.json, Swagger UI at /swagger.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config.js';
import { ERROR_EXAMPLES } from '../../schemas/common.js';

/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument --
   the generated OpenAPI document is untyped JSON */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

/**
 * Finishing touches on the generated document: a schema marked `x-document-as: Name` (loose at the
 * edge because the service reports every problem of it at once) is shown as that component, and
 * every error response carries an example of its shape for its status.
 */
function finishDocument(doc: Json): Json {
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (!node || typeof node !== 'object') return node;
    const obj = node as Json;
    if (typeof obj['x-document-as'] === 'string') {
      return {
        allOf: [{ $ref: `#/components/schemas/${obj['x-document-as']}` }],
        ...(obj.description ? { description: obj.description } : {}),
      };
    }
    return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, visit(v)]));
  };
  const out = visit(doc) as Json;
  for (const item of Object.values<Json>(out.paths ?? {})) {
    for (const op of Object.values<Json>(item)) {
      for (const [code, response] of Object.entries<Json>(op.responses ?? {})) {
        const media = response.content?.['application/json'];
        if (media && ERROR_EXAMPLES[Number(code)] && media.example === undefined)
          media.example = ERROR_EXAMPLES[Number(code)];
      }
    }
  }
  return out;
}

export default fp(
  async function swaggerPlugin(app: FastifyInstance, opts: { config: Config }) {
    await app.register(swagger, {
      openapi: {
        openapi: '3.0.3',
        info: {
          title: 'Cloud Extraction Service API',
          version: 'v1',
          description:
            'Agents in Spaces, their Runs, Schedules, analytics, credits billing and the Agent Builder. ' +
            'Authenticate with `Authorization: ApiKey <key>` or `Authorization: Bearer <jwt>` (from POST /oauth/token). ' +
            'Errors: 400 answers BadRequestError; every other error answers ProblemDetails (RFC 7807); both carry `errorCode` (see the ErrorCode schema). ' +
            'Official SDKs: `@cloud-extraction/client` for Node (sdk/typescript in the repository) and `cloud_extraction` for Python (sdk/python); both retry with Retry-After, page, wait for Runs and verify webhooks.',
        },
        // Without PUBLIC_URL, "/" lets the Swagger UI call the host it was loaded from.
        servers: [{ url: opts.config.publicUrlConfigured ? opts.config.publicUrl : '/' }],
        components: {
          securitySchemes: {
            ApiKey: {
              type: 'apiKey',
              in: 'header',
              name: 'Authorization',
              description:
                'The value of the Authorization header is the word `ApiKey`, a space, then the key: `Authorization: ApiKey cx_…`. ' +
                "In Swagger UI's Authorize dialog, enter `ApiKey <key>` (the whole header value). Keys come from `cli bootstrap`, `cli create-api-key` or POST /api/v1/users/{userId}/api-keys.",
            },
            Bearer: {
              type: 'http',
              scheme: 'bearer',
              bearerFormat: 'JWT',
              description: 'Access token from POST /oauth/token.',
            },
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
      transformObject: (documentObject) =>
        finishDocument((documentObject as { openapiObject: Json }).openapiObject) as never,
      refResolver: {
        buildLocalReference(json, _baseUri, _fragment, i) {
          return typeof json.$id === 'string' ? json.$id : `def-${i}`;
        },
      },
    });
    // The UI's page loads its assets relatively (./static/...): serve it only at /swagger/.
    app.addHook('onRequest', (request, reply, done) => {
      const url = request.url;
      if (url.length < 8 || (url.charCodeAt(1) | 32) !== 115 /* s */) return done();
      const [path, query] = url.split('?');
      if (path.toLowerCase() !== '/swagger') return done();
      reply.redirect(`/swagger/${query ? `?${query}` : ''}`, 301);
    });
    await app.register(swaggerUi, { routePrefix: '/swagger', uiConfig: { url: '/swagger/v1/swagger.json' } });
    app.get('/swagger/v1/swagger.json', { schema: { hide: true }, config: { public: true } }, async () =>
      app.swagger(),
    );
  },
  { name: 'swagger' },
);
