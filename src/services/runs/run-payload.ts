// What a run process is given to execute a Run: its Agent version's definition with its secrets opened,
// its input rows and parameters, its proxies (the Run's own first), its limits and where it stores its
// files. A Run that cannot be prepared (its Agent or proxy pool gone) throws a RunSetupError.
import { unseal } from '../../lib/crypto.js';
import { resolveInputRows, type AgentDefinition, type BrowserSettings } from '../../engine/index.js';
import type { StorageSettings } from '../../storage/index.js';
import { openDefinitionSecrets } from '../agents/definition-secrets.js';
import { openSentParameters, resolveParameters } from './input-parameters.js';
import { RunFailureCode, RunSetupError } from './run-errors.js';
import { unstoredDir, type ChildStartPayload } from './run-protocol.js';
import type { RunRow } from './runs.repository.js';

/** The settings the worker executes Runs with. */
export interface ExecutionConfig {
  encryptionKey: Buffer;
  storage: StorageSettings;
  engineAllowPrivateTargets: boolean;
  browser?: BrowserSettings;
  runs: {
    defaultTimeoutSeconds: number;
    waitOnFailureSeconds: number;
    waitOnFailureRetries: number;
    requestTimeoutMs: number;
    pageCpuSeconds: number;
    staleAfterSeconds: number;
    stopGraceSeconds: number;
    /** Absent: 0, a Run's files are tried once. */
    storageRetrySeconds?: number;
  };
  /** Files of Runs that could not be stored are kept under `<storageDir>/unstored/` on the worker. */
  storageDir?: string;
}

export function prepareRun(
  config: ExecutionConfig,
  run: RunRow,
  version: AgentDefinition | null,
  pool: { proxies: string } | null,
) {
  if (!version) throw new RunSetupError({ code: RunFailureCode.AgentGone, params: {} });
  const definition = openDefinitionSecrets(version, config.encryptionKey);
  const params = definition.parameters ?? [];
  const sent = openSentParameters(config.encryptionKey, run.inputParameters);
  const { values, secretNames } = resolveParameters(params, sent);
  const sentValues = Object.fromEntries(sent.map((s) => [s.name, s.value]));
  const inputs = resolveInputRows({ ...definition, parameters: params }, sentValues);
  const secrets = secretNames.map((n) => values[n]).filter((v): v is string => typeof v === 'string' && v.length > 0);
  let proxyUrl: string | undefined;
  let proxyPool: string[] | undefined;
  if (run.proxyPoolId) {
    if (!pool)
      throw new RunSetupError({ code: RunFailureCode.ProxyPoolGone, params: { proxyPoolId: run.proxyPoolId } });
    const proxies = JSON.parse(unseal(config.encryptionKey, pool.proxies)) as string[];
    // The Run's own proxy first (each attempt of the Run starts at the next one); the rest of the pool
    // follows in order, for the definition's proxy rotation.
    const first = (run.id + run.retryCount) % proxies.length;
    proxyPool = [...proxies.slice(first), ...proxies.slice(0, first)];
    proxyUrl = proxyPool[0];
    secrets.push(...proxyPool);
  }
  const timeoutSeconds = run.timeoutSeconds ?? definition.timeoutSeconds ?? config.runs.defaultTimeoutSeconds;
  return {
    timeoutSeconds,
    payload: {
      runId: run.id,
      storage: config.storage,
      definition: { ...definition, parameters: params, timeoutSeconds },
      inputRows: inputs,
      parallelism: run.parallelism,
      maxConcurrency: run.parallelMaxConcurrency,
      parallelExport: run.parallelExport === 'Separated' ? ('Separated' as const) : ('Combined' as const),
      requestTimeoutMs: config.runs.requestTimeoutMs,
      pageCpuSeconds: config.runs.pageCpuSeconds,
      proxyUrl,
      ...(proxyPool && proxyPool.length > 1 ? { proxyPool } : {}),
      allowPrivateTargets: config.engineAllowPrivateTargets,
      browser: config.browser,
      logLevel: run.logLevel as ChildStartPayload['logLevel'],
      logMode: run.logMode as ChildStartPayload['logMode'],
      secrets,
      keepRecords: run.keepRecords,
      stopGraceMs: config.runs.stopGraceSeconds * 1000,
      storageRetryMs: (config.runs.storageRetrySeconds ?? 0) * 1000,
      ...(config.storageDir !== undefined ? { unstoredDir: unstoredDir(config.storageDir) } : {}),
    },
  };
}
