// Every path parameter of the API, defined once. Ids are int32 except a Schedule's (int64 in the
// contract; an id past what is stored answers 404, not 400).
import { Type } from '@sinclair/typebox';
import { IdParam, Int64IdParam } from './common.js';

const agentId = IdParam('agent');

export const AgentParams = Type.Object({ agentId });
export const AgentRunParams = Type.Object({ agentId, runId: IdParam('run') });
export const RunFileParams = Type.Object({ agentId, runId: IdParam('run'), fileId: IdParam('file') });
export const AgentVersionParams = Type.Object({ agentId, version: IdParam('version') });
export const ScheduleParams = Type.Object({ agentId, scheduleId: Int64IdParam('schedule') });
export const SpaceParams = Type.Object({ spaceId: IdParam('space') });
export const UserParams = Type.Object({ userId: IdParam('user') });
export const UserKeyParams = Type.Object({ userId: IdParam('user'), keyId: IdParam('API key') });
export const ProxyPoolParams = Type.Object({ proxyPoolId: IdParam('proxy pool') });
export const WebhookParams = Type.Object({ webhookId: IdParam('webhook') });
export const DeliveryParams = Type.Object({ webhookId: IdParam('webhook'), deliveryId: IdParam('delivery') });
export const SessionParams = Type.Object({ sessionId: Type.String({ minLength: 1, maxLength: 100 }) });
