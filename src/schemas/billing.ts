// Billing: credits balance, ledger, spending and per-Agent costs (docs/api-contract.md §6), in the shapes
// the public client reads.
import { Type, type Static } from '@sinclair/typebox';
import {
  DateTime,
  GroupByDayQuery,
  NullableDateTime,
  PageIndexQuery,
  QueryDateOf,
  RecordsPerPageQuery,
} from './common.js';

const Page = { pageIndex: PageIndexQuery('1-based page number (default 1).') };
const UsageTypesQuery = Type.Optional(
  Type.String({
    description:
      'Comma-separated usage types (case-insensitive): Server Time, Export GB, Agent Inputs, Proxy Data, Export CPM. Default: all.',
  }),
);
const SortOrderQuery = Type.Optional(Type.Integer({ enum: [0, 1], description: '0 ascending, 1 descending.' }));
const RequiredStart = QueryDateOf('Start of the range (inclusive). Required.');
const RequiredEnd = QueryDateOf('End of the range. Required.');

export const CreditsBalanceSchema = Type.Object(
  {
    availableCredits: Type.Number({
      description: 'Sum of the remaining credits of the unexpired grants; 0 when exhausted.',
    }),
    organizationId: Type.Integer(),
    retrievedAt: DateTime,
  },
  { $id: 'CreditsBalance' },
);

export const CreditTransactionSchema = Type.Object(
  {
    id: Type.Integer(),
    transactionType: Type.String({
      description:
        "Grant (credits added), Usage (a Run's cost taken from one grant), Uncovered (cost no credit covered), Expiry (unused credits of an expired grant).",
    }),
    amount: Type.Number({ description: 'Positive for a Grant; negative for Usage, Uncovered and Expiry.' }),
    balance: Type.Number({ description: "The organization's available credits after this transaction." }),
    created: DateTime,
    expiresAt: NullableDateTime,
    message: Type.String(),
  },
  { $id: 'CreditTransaction' },
);

export const CreditHistorySchema = Type.Object(
  {
    transactions: Type.Array(Type.Ref(CreditTransactionSchema)),
    totalCount: Type.Integer(),
    pageIndex: Type.Integer(),
    recordsPerPage: Type.Integer(),
  },
  { $id: 'CreditHistory' },
);

export const SpendingSummarySchema = Type.Object(
  {
    totalSpent: Type.Number({ description: 'Credits debited for usage in the range.' }),
    startDate: DateTime,
    endDate: DateTime,
    organizationId: Type.Integer(),
    currentBalance: Type.Number(),
    days: Type.Optional(
      Type.Array(Type.Object({ date: Type.String({ format: 'date' }), totalSpent: Type.Number() }), {
        description: 'With groupBy=day: the credits spent per UTC day of the range, oldest first.',
      }),
    ),
  },
  { $id: 'SpendingSummary' },
);

export const AgentCostEntrySchema = Type.Object(
  { agentId: Type.Integer(), agentName: Type.String(), cost: Type.Number(), spaceId: Type.Integer() },
  { $id: 'AgentCostEntry' },
);

export const AgentsCostSchema = Type.Object(
  {
    agents: Type.Array(Type.Ref(AgentCostEntrySchema)),
    totalRecordCount: Type.Integer({
      description: 'Agents with a cost (of the selected usage types) in the range that match the filters.',
    }),
    totalCost: Type.Number({ description: 'Cost of every matching Agent in the range (all pages).' }),
    startDate: DateTime,
    endDate: DateTime,
  },
  { $id: 'AgentsCost' },
);

export const AgentCostBreakdownSchema = Type.Object(
  {
    agentId: Type.Integer(),
    agentName: Type.String(),
    labels: Type.Array(Type.String(), {
      description: 'One per period: YYYY-MM-DD (day; week: its Monday) or YYYY-MM (month).',
    }),
    usageTypes: Type.Array(
      Type.Object({
        type: Type.String(),
        data: Type.Array(Type.Number(), { description: 'Cost per period, aligned with labels.' }),
        totalCost: Type.Number(),
      }),
    ),
    totalCost: Type.Number(),
    startDate: DateTime,
    endDate: DateTime,
  },
  { $id: 'AgentCostBreakdown' },
);

export const AgentRunsCostSchema = Type.Object(
  {
    runs: Type.Array(
      Type.Object({
        runId: Type.Integer(),
        date: DateTime,
        startTime: NullableDateTime,
        endTime: NullableDateTime,
        cost: Type.Number(),
        billingType: Type.String({
          description: 'Credits (paid from grants) or Uncovered (part of the cost exceeded the available credits).',
        }),
      }),
    ),
    totalRecordCount: Type.Integer(),
    totalCost: Type.Number(),
    agentId: Type.Integer(),
    agentName: Type.String(),
  },
  { $id: 'AgentRunsCost' },
);

export const HistoryQuery = Type.Object({
  ...Page,
  recordsPerPage: RecordsPerPageQuery('Default 50; over 100 is clamped to 100.'),
});

export const SpendingQuery = Type.Object({
  startDate: Type.Optional(QueryDateOf('Start of the range (inclusive); default: 30 days before now.')),
  endDate: Type.Optional(QueryDateOf('End of the range; default: now.')),
  groupBy: GroupByDayQuery,
});

export const AgentsCostQuery = Type.Object({
  startDate: RequiredStart,
  endDate: RequiredEnd,
  ...Page,
  recordsPerPage: RecordsPerPageQuery('Default 50; over 1000 is clamped to 1000.'),
  sortColumn: Type.Optional(Type.String({ description: 'name (default) or cost.' })),
  sortOrder: SortOrderQuery,
  name: Type.Optional(
    Type.String({ maxLength: 500, description: 'Case-insensitive contains match on the Agent name.' }),
  ),
  usageTypes: UsageTypesQuery,
});

export const AgentBreakdownQuery = Type.Object({
  startDate: RequiredStart,
  endDate: RequiredEnd,
  timeUnit: Type.Optional(Type.String({ description: 'day (default), week or month. At most 1000 periods.' })),
  usageTypes: UsageTypesQuery,
});

export const AgentRunsCostQuery = Type.Object({
  startDate: RequiredStart,
  endDate: RequiredEnd,
  ...Page,
  recordsPerPage: RecordsPerPageQuery('Default 50; over 1000 is clamped to 1000.'),
  sortColumn: Type.Optional(Type.String({ description: 'date (default), cost or duration.' })),
  sortOrder: Type.Optional(
    Type.Integer({
      enum: [0, 1],
      description: '0 ascending, 1 descending; default: descending for date (newest first), ascending otherwise.',
    }),
  ),
  usageTypes: UsageTypesQuery,
});
export type AgentsCostQueryInput = Static<typeof AgentsCostQuery>;
export type AgentRunsCostQueryInput = Static<typeof AgentRunsCostQuery>;

export const LowCreditsAlertSchema = Type.Object(
  {
    threshold: Type.Number({
      minimum: 0,
      description: 'credits.low is sent when a Run’s debit takes the balance below this; 0 turns it off.',
    }),
    isDefault: Type.Boolean({
      description: 'true when the organization uses the service default (CREDITS_LOW_THRESHOLD).',
    }),
    organizationId: Type.Integer(),
  },
  { $id: 'LowCreditsAlert', examples: [{ threshold: 25, isDefault: false, organizationId: 1 }] },
);

export const LowCreditsAlertBody = Type.Object(
  {
    threshold: Type.Union([Type.Number({ minimum: 0, maximum: 999_999_999_999 }), Type.Null()], {
      description: 'The organization’s threshold (at most 6 decimal places); null returns to the service default.',
    }),
  },
  { additionalProperties: false, examples: [{ threshold: 25 }] },
);
export type LowCreditsAlertInput = Static<typeof LowCreditsAlertBody>;

export const billingModelSchemas = [
  LowCreditsAlertSchema,
  CreditsBalanceSchema,
  CreditTransactionSchema,
  CreditHistorySchema,
  SpendingSummarySchema,
  AgentCostEntrySchema,
  AgentsCostSchema,
  AgentCostBreakdownSchema,
  AgentRunsCostSchema,
];
