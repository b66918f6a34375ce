// The Agent API model (docs/api-contract.md §3.1) from a stored row.
import { inputParametersObject } from './agent-definition.js';
import type { AgentModel } from '../../schemas/agents.js';
import type { AgentRow } from './agents.repository.js';

/** The response model is the schema's (src/schemas/agents.ts). */
export type AgentView = AgentModel;

export function toAgentView(row: AgentRow): AgentView {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    documentation: row.documentation,
    icon: row.icon,
    image: row.image,
    agentTemplates: row.agentTemplates,
    configType: row.configType,
    inputParameters: inputParametersObject(row.parameters),
    isActive: row.isActive,
    isArchived: row.isArchived,
    lastActivity: row.lastActivity,
    proxyPoolId: row.proxyPoolId,
    spaceId: row.spaceId,
    startUrl: row.startUrl,
    status: row.status,
    userId: row.userId,
    validationStatus: row.validationStatus,
    version: row.version,
    created: row.created,
    updated: row.updated,
  };
}
