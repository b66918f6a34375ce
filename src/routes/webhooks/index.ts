// Webhook subscriptions, their secrets, test events and delivery log (organization administrators only).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { principalOf } from '../../plugins/app/auth.js';
import { errorResponses } from '../../schemas/common.js';
import {
  AUTO_DISABLE_RULE,
  DeliveriesQuery,
  WebhookBody,
  WebhookDeliveryPageSchema,
  WebhookSchema,
  WebhookTestResultSchema,
  WebhookWithSecretSchema,
} from '../../schemas/webhooks.js';
import { DeliveryParams, WebhookParams } from '../../schemas/params.js';

const ADMIN_ONLY = 'Organization administrators only (403 for members).';

const PUBLIC_TARGET_RULE =
  'Unless the operator sets ENGINE_ALLOW_PRIVATE_TARGETS=true, a url whose host is or resolves to a non-public address ' +
  '(loopback, private, link-local, unique-local, CGNAT or reserved, in any spelling such as 0xa9fea9fe or [::ffff:169.254.169.254]) ' +
  'answers 400 VALIDATION_FAILED naming the address and its class; every delivery checks the target again.';

const webhooksRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['Webhooks'];

  app.post(
    '/api/v1/webhooks',
    {
      schema: {
        tags,
        summary: 'Subscribe a URL to events (the signing secret is returned once)',
        description:
          `${ADMIN_ONLY} Events are POSTed as \`{ type, timestamp, data }\` with the Standard Webhooks headers webhook-id, webhook-timestamp and webhook-signature. ` +
          'The secret (`whsec_...`) is in this answer only; it is stored sealed. An agentId or spaceId not in the organization answers 404. ' +
          PUBLIC_TARGET_RULE,
        operationId: 'createWebhook',
        body: WebhookBody,
        response: { 201: Type.Ref(WebhookWithSecretSchema), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req, reply) => reply.code(201).send(await app.webhooks.create(principalOf(req), req.body)),
  );

  app.get(
    '/api/v1/webhooks',
    {
      schema: {
        tags,
        summary: "List the organization's webhook subscriptions",
        description: `${ADMIN_ONLY} Never the secrets.`,
        operationId: 'listWebhooks',
        response: { 200: Type.Array(Type.Ref(WebhookSchema)), ...errorResponses(401, 403, 429) },
      },
    },
    async (req) => app.webhooks.list(principalOf(req)),
  );

  app.get(
    '/api/v1/webhooks/:webhookId',
    {
      schema: {
        tags,
        summary: 'Get a webhook subscription',
        description: `${ADMIN_ONLY} disabledReason says why the service disabled it (${AUTO_DISABLE_RULE}).`,
        operationId: 'getWebhook',
        params: WebhookParams,
        response: { 200: Type.Ref(WebhookSchema), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.webhooks.get(principalOf(req), req.params.webhookId),
  );

  app.put(
    '/api/v1/webhooks/:webhookId',
    {
      schema: {
        tags,
        summary: 'Replace a webhook subscription',
        description: `${ADMIN_ONLY} Enabling a disabled subscription clears its disabledReason. ${PUBLIC_TARGET_RULE}`,
        operationId: 'updateWebhook',
        params: WebhookParams,
        body: WebhookBody,
        response: { 200: Type.Ref(WebhookSchema), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.webhooks.update(principalOf(req), req.params.webhookId, req.body),
  );

  app.delete(
    '/api/v1/webhooks/:webhookId',
    {
      schema: {
        tags,
        summary: 'Delete a webhook subscription and its delivery log',
        description: ADMIN_ONLY,
        operationId: 'deleteWebhook',
        params: WebhookParams,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req, reply) => {
      await app.webhooks.remove(principalOf(req), req.params.webhookId);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/v1/webhooks/:webhookId/rotate-secret',
    {
      schema: {
        tags,
        summary: 'Rotate the signing secret (the new one is returned once)',
        description: `${ADMIN_ONLY} For 24 hours both the old and the new secret sign every attempt (two space-separated signatures).`,
        operationId: 'rotateWebhookSecret',
        params: WebhookParams,
        response: { 200: Type.Ref(WebhookWithSecretSchema), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.webhooks.rotateSecret(principalOf(req), req.params.webhookId),
  );

  app.post(
    '/api/v1/webhooks/:webhookId/test',
    {
      schema: {
        tags,
        summary: 'Send a webhook.test event now and answer with the outcome',
        description: `${ADMIN_ONLY} One attempt (15 s at most), never retried, recorded in the delivery log.`,
        operationId: 'testWebhook',
        params: WebhookParams,
        response: { 200: Type.Ref(WebhookTestResultSchema), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.webhooks.test(principalOf(req), req.params.webhookId),
  );

  app.get(
    '/api/v1/webhooks/:webhookId/deliveries',
    {
      schema: {
        tags,
        summary: 'The delivery log of a subscription, newest first',
        description: `${ADMIN_ONLY} Each delivery with its attempts (time, status code, duration, first 4 KB of the answer). Kept at least 7 days.`,
        operationId: 'listWebhookDeliveries',
        params: WebhookParams,
        querystring: DeliveriesQuery,
        response: { 200: Type.Ref(WebhookDeliveryPageSchema), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.webhooks.deliveries(principalOf(req), req.params.webhookId, req.query),
  );

  app.post(
    '/api/v1/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
    {
      schema: {
        tags,
        summary: 'Deliver a finished delivery again',
        description: `${ADMIN_ONLY} Same webhook-id and payload; the worker sends it within about 10 seconds. A delivery still pending answers 409.`,
        operationId: 'redeliverWebhook',
        params: DeliveryParams,
        response: { 202: Type.Null({ description: 'Queued again.' }), ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (req, reply) => {
      await app.webhooks.redeliver(principalOf(req), req.params.webhookId, req.params.deliveryId);
      return reply.code(202).send(null);
    },
  );
};
export default webhooksRoutes;
