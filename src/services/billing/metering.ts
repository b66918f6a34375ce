// Pure rules of billing: what a terminal Run used (per usage type, priced from configuration) and the
// names the API accepts (how a cost is spread over the grants is one SQL statement under the
// organization's lock: CreditsRepository.debit). Exact decimals throughout (Prisma's Decimal); amounts are rounded half-up to the 6 places of the credit columns.
import type { Config } from '../../config.js';
import { Decimal } from '../../db/prisma.js';

export { Decimal };

export const USAGE_TYPES = ['Server Time', 'Export GB', 'Agent Inputs', 'Proxy Data', 'Export CPM'] as const;
export type UsageType = (typeof USAGE_TYPES)[number];

/** The rollup column (UsageDaily) that holds each usage type's cost. */
export const USAGE_COST_COLUMN: Record<UsageType, string> = {
  'Server Time': 'serverTimeCost',
  'Export GB': 'exportGbCost',
  'Agent Inputs': 'agentInputsCost',
  'Proxy Data': 'proxyDataCost',
  'Export CPM': 'exportCpmCost',
};

/** Credits per unit of each usage type, as configured (BILLING_PRICE_*). */
export type Prices = Config['billing']['prices'];

export interface MeteredRun {
  startTime: Date | null;
  endTime: Date | null;
  inputCount: number;
  traffic: bigint;
  proxyPoolId: number | null;
  recordsExported: number;
}

export interface UsageLine {
  usageType: UsageType;
  quantity: Decimal;
  unitPrice: Decimal;
  cost: Decimal;
}

const PLACES = 6;
const round = (d: Decimal) => d.toDecimalPlaces(PLACES, Decimal.ROUND_HALF_UP);
// Decimal gigabytes (10^9 bytes), as storage and transfer are usually sold.
const BYTES_PER_GB = new Decimal(1_000_000_000);
const MS_PER_HOUR = new Decimal(3_600_000);

/**
 * The usage of one Run. Server Time is the runtime of its last execution (startTime to endTime; none
 * if it never started), Export GB the bytes of its export files, Agent Inputs its input rows, Proxy
 * Data the bytes it received when it ran through a proxy pool, Export CPM its exported records per
 * thousand. Types with a zero quantity are left out (nothing was used).
 */
export function meterRun(run: MeteredRun, exportBytes: bigint, prices: Prices): UsageLine[] {
  const runtimeMs = run.startTime && run.endTime ? Math.max(0, run.endTime.getTime() - run.startTime.getTime()) : 0;
  const quantities: Array<[UsageType, Decimal, string]> = [
    ['Server Time', new Decimal(runtimeMs).div(MS_PER_HOUR), prices.serverTimeHour],
    ['Export GB', new Decimal(exportBytes.toString()).div(BYTES_PER_GB), prices.exportGb],
    ['Agent Inputs', new Decimal(run.inputCount), prices.agentInput],
    [
      'Proxy Data',
      run.proxyPoolId ? new Decimal(run.traffic.toString()).div(BYTES_PER_GB) : new Decimal(0),
      prices.proxyDataGb,
    ],
    ['Export CPM', new Decimal(run.recordsExported).div(1000), prices.exportCpm],
  ];
  const lines: UsageLine[] = [];
  for (const [usageType, raw, price] of quantities) {
    const quantity = round(raw);
    if (quantity.isZero()) continue;
    const unitPrice = new Decimal(price);
    lines.push({ usageType, quantity, unitPrice, cost: round(quantity.times(unitPrice)) });
  }
  return lines;
}

export function totalCost(lines: readonly { cost: Decimal }[]): Decimal {
  return lines.reduce((sum, l) => sum.plus(l.cost), new Decimal(0));
}

/** Parses the `usageTypes` query (comma-separated, case-insensitive); empty means every type. */
export function parseUsageTypes(value: string | undefined): UsageType[] | null {
  if (value === undefined || value.trim() === '') return [...USAGE_TYPES];
  const out: UsageType[] = [];
  for (const part of value.split(',')) {
    const name = part.trim().replace(/\s+/g, ' ').toLowerCase();
    if (name === '') continue;
    const hit = USAGE_TYPES.find((t) => t.toLowerCase() === name);
    if (!hit) return null;
    if (!out.includes(hit)) out.push(hit);
  }
  return out.length > 0 ? out : [...USAGE_TYPES];
}
