// OAuth 2.0 token endpoint (RFC 6749: password and refresh_token grants) and the JWKS.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ProblemRef } from '../../schemas/common.js';
import { validationMessage } from '../../plugins/app/errors.js';
import { ErrorCodes } from '../../lib/errors.js';
import { OAuthError } from '../../services/identity/tokens.service.js';

const OAuthErrorSchema = Type.Object(
  {
    error: Type.String(),
    error_description: Type.Optional(Type.String()),
    errorCode: Type.Optional(
      Type.String({
        description: 'VALIDATION_FAILED when a field was refused (for example a NUL character); see docs/errors.md.',
      }),
    ),
  },
  { $id: 'OAuthError', description: 'RFC 6749 section 5.2 error response.' },
);

const TokenResponseSchema = Type.Object(
  {
    access_token: Type.String(),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer(),
    refresh_token: Type.String(),
  },
  { $id: 'TokenResponse' },
);

const oauthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(OAuthErrorSchema);
  app.addSchema(TokenResponseSchema);

  app.post(
    '/oauth/token',
    {
      config: { public: true },
      // Validation is done here rather than by schema so that errors keep the RFC 6749 shape.
      attachValidation: true,
      schema: {
        tags: ['OAuth'],
        summary: 'Exchange credentials for an access token (grant_type password or refresh_token)',
        description:
          'OAuth 2.0 token endpoint (RFC 6749). Send form-encoded (or JSON) fields: `grant_type=password` with `username` and `password`, or `grant_type=refresh_token` with `refresh_token`. Errors use the RFC 6749 shape `{ error, error_description }`, not ProblemDetails.',
        operationId: 'createToken',
        security: [],
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        body: Type.Object(
          {
            grant_type: Type.String({ description: 'password or refresh_token' }),
            username: Type.Optional(Type.String()),
            password: Type.Optional(Type.String()),
            refresh_token: Type.Optional(Type.String()),
            scope: Type.Optional(Type.String()),
            client_id: Type.Optional(Type.String()),
          },
          { examples: [{ grant_type: 'password', username: 'admin@acme.test', password: 'change-me-please' }] },
        ),
        response: {
          200: Type.Ref(TokenResponseSchema),
          400: Type.Ref(OAuthErrorSchema),
          401: Type.Ref(OAuthErrorSchema),
          429: ProblemRef,
        },
      },
    },
    async (req, reply) => {
      reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache');
      try {
        const body = (req.body ?? {}) as Record<string, string | undefined>;
        // A field the database would refuse (NUL, unpaired surrogate) is named, in the RFC 6749 shape.
        // eslint-disable-next-line @typescript-eslint/no-unsafe-member-access -- Fastify types `validation` as any here
        if (req.validationError?.validation?.[0]?.keyword === 'safeText') {
          return reply.code(400).send({
            error: 'invalid_request',
            error_description: validationMessage(req.validationError),
            errorCode: ErrorCodes.VALIDATION_FAILED,
          });
        }
        if (req.validationError || typeof body.grant_type !== 'string') {
          throw new OAuthError('invalid_request', 'grant_type is required (password or refresh_token).');
        }
        // Before any password hashing: attempts per client IP, and per username for the password grant.
        await app.rateLimit.guardTokenRequest(req.ip, body.grant_type === 'password' ? body.username : undefined);
        switch (body.grant_type) {
          case 'password':
            return await app.identity.tokens.passwordGrant(body.username, body.password);
          case 'refresh_token':
            return await app.identity.tokens.refreshGrant(body.refresh_token);
          default:
            throw new OAuthError(
              'unsupported_grant_type',
              `grant_type ${body.grant_type} is not supported; use password or refresh_token.`,
            );
        }
      } catch (err) {
        if (err instanceof OAuthError)
          return reply.code(err.status as 400 | 401).send({ error: err.error, error_description: err.description });
        throw err;
      }
    },
  );

  app.get(
    '/.well-known/jwks.json',
    {
      config: { public: true },
      schema: {
        tags: ['OAuth'],
        summary: 'Public keys that verify access tokens',
        description:
          'The JSON Web Key Set whose public keys verify the access tokens this service issues (for resource servers that verify tokens themselves).',
        operationId: 'getJwks',
        security: [],
        response: { 200: Type.Object({ keys: Type.Array(Type.Object({}, { additionalProperties: true })) }) },
      },
    },
    async () => app.identity.tokens.jwks(),
  );
};
export default oauthRoutes;
