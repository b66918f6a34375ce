// An Agent's change tracking (definition `changes`): forgetting what it remembers of its records.
// HTTP only: access and rules live in services/changes.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { principalOf } from '../../plugins/app/auth.js';
import { errorResponses } from '../../schemas/common.js';
import { AgentParams } from '../../schemas/params.js';

const ChangesResetSchema = Type.Object(
  {
    agentId: Type.Integer(),
    forgottenKeys: Type.Integer({ minimum: 0, description: 'Record keys the Agent no longer remembers.' }),
  },
  { title: 'ChangesReset', example: { agentId: 42, forgottenKeys: 1250 } },
);

const agentChangesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/api/v1/agent/:agentId/changes/reset',
    {
      schema: {
        tags: ['Agents'],
        summary: 'Forget the records a change-tracking Agent remembers',
        operationId: 'resetAgentChanges',
        description:
          'For an Agent whose definition has `changes`: forgets every record key it remembers (their hashes and last values), ' +
          "so its next Run exports every record as `_change` 'new' and reports nothing 'deleted'. Needs write access to the Agent; " +
          'an Agent without change tracking answers 200 with forgottenKeys 0. A Run executing meanwhile updates the state as usual when it ends Success.',
        params: AgentParams,
        response: { 200: ChangesResetSchema, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req) => app.changes.reset(principalOf(req), req.params.agentId),
  );
};
export default agentChangesRoutes;
