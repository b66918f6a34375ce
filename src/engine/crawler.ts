// The engine's entry point: validates the definition, gathers the secrets to mask, splits the input
// rows into sets crawled side by side, enforces the run timeout and turns what the crawl saw into a result.
import { chromiumAvailable, CHROMIUM_PATH_HINT, openRenderer, pooledBrowserSources } from './browser/index.js';
import { parameterDefaults, renderModeOf } from './definition.js';
import { validateDefinition } from './definition-validate.js';
import { usableCheckpoint } from './checkpoint.js';
import { criteriaMissed } from './definition-criteria.js';
import { emptyEvidence, qualityProblem, type RunEvidence } from './evidence.js';
import { emptyStats, ExtractionRun, type OpenPageSource, type RecordSink } from './crawl.js';
import { locatorText } from './list-records.js';
import {
  DEFAULT_MAX_CONCURRENCY,
  type BrowserSettings,
  type ExtractionOptions,
  type LogFunction,
  type ExtractionResult,
  type ExtractionSet,
} from './extraction-types.js';
import { engineFailureMessage, EngineFailureCode, maskFailure, type EngineFailure } from './failure-codes.js';
import { HttpClient } from './http.js';
import type { PageSource } from './page.js';
import { openPoliteSource, politeHttpOptions, runProxyPool, type Politeness } from './politeness.js';
import { createMasker } from './secrets.js';
import { BrowserCookieSync, logInFirst, openCookieJar } from './session.js';
import type { RunCookieJar } from './cookies.js';
import { runUserAgent } from './user-agent.js';

/** Splits rows into `count` contiguous sets whose sizes differ by at most one (earlier sets larger). */
export function splitIntoSets<T>(rows: T[], count: number): T[][] {
  const sets: T[][] = [];
  const base = Math.floor(rows.length / count);
  const extra = rows.length % count;
  let offset = 0;
  for (let i = 0; i < count; i++) {
    const size = base + (i < extra ? 1 : 0);
    sets.push(rows.slice(offset, offset + size));
    offset += size;
  }
  return sets;
}

/** Pages over HTTP, in the browser or both (the definition's `render`), with the Run's limits and manners. */
function openPageSource(
  options: ExtractionOptions,
  browser: BrowserSettings | undefined,
  jar: RunCookieJar,
  opened: (source: PageSource) => void,
): OpenPageSource {
  const openBrowser = browser ? (options.openBrowserSource ?? pooledBrowserSources(browser)) : null;
  const settings = {
    definition: options.definition,
    allowPrivateTargets: options.allowPrivateTargets,
    upstreamProxyPool: runProxyPool(options),
    userAgent: options.definition.userAgent ?? options.userAgent,
    maxRetries: options.maxRetries,
    retryBaseDelayMs: options.retryBaseDelayMs,
  };
  return (signal, log, evidence) => {
    const source = openPoliteSource(options, signal, log, evidence, (polite) =>
      openRenderer(
        options.definition,
        () => openHttpSource(options, signal, log, jar, polite),
        openBrowser &&
          (() => new BrowserCookieSync(polite.gated(openBrowser(settings, signal, log, polite.browserEvents)), jar)),
        log,
        evidence,
      ),
    );
    opened(source);
    return source;
  };
}

/** Pages over HTTP, with the Run's limits; retries are logged as warnings. */
function openHttpSource(
  options: ExtractionOptions,
  signal: AbortSignal,
  log: LogFunction,
  jar: RunCookieJar,
  polite: Politeness,
) {
  return new HttpClient({
    maxConcurrency: options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY,
    requestTimeoutMs: options.requestTimeoutMs,
    maxRetries: options.maxRetries,
    retryBaseDelayMs: options.retryBaseDelayMs,
    proxyUrl: options.proxyUrl,
    allowPrivateTargets: options.allowPrivateTargets,
    signal,
    userAgent: runUserAgent(options),
    maxBodyBytes: options.maxBodyBytes,
    cookies: jar,
    ...politeHttpOptions(polite),
    onRetry: (e) =>
      log(
        'Warning',
        `GET ${e.url} ${e.message}; retrying in ${e.delayMs} ms (attempt ${e.attempt + 1} of ${e.maxAttempts})`,
      ),
  });
}

/**
 * Runs a definition over its input rows and returns the extracted records per set. Resolves (never
 * rejects) for anything that happens on the web: failures are in `failedPages`, `stats` and `fatalError`.
 * Rejects only for invalid options.
 */
export async function runExtraction(options: ExtractionOptions): Promise<ExtractionResult> {
  const parallelism = options.parallelism ?? 1;
  const maxConcurrency = options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY;
  if (!Number.isInteger(parallelism) || parallelism < 1)
    throw new RangeError(`parallelism must be a positive integer, got ${parallelism}`);
  if (!Number.isInteger(maxConcurrency) || maxConcurrency < 1) {
    throw new RangeError(`maxConcurrency must be a positive integer, got ${maxConcurrency}`);
  }

  const def = options.definition;
  // Read defensively: the definition has not been validated yet, and its problems may quote these values.
  const declared: unknown[] = Array.isArray(def?.parameters) ? def.parameters : [];
  const encryptedDefaults = declared
    .map((p) => p as { encrypted?: unknown; defaultValue?: unknown } | null)
    .filter((p) => p?.encrypted === true && typeof p.defaultValue === 'string' && p.defaultValue !== '')
    .map((p) => p?.defaultValue as string);
  const proxySecrets: string[] = [];
  for (const proxyUrl of [...(options.proxyUrl ? [options.proxyUrl] : []), ...(options.proxyPool ?? [])]) {
    try {
      const proxy = new URL(proxyUrl);
      if (proxy.password) proxySecrets.push(decodeURIComponent(proxy.password), proxy.password);
    } catch {
      // An unparsable proxy URL fails on first use with its own message.
    }
  }
  const mask = createMasker([...(options.secrets ?? []), ...encryptedDefaults, ...proxySecrets]);

  const validation = validateDefinition(def);
  if (!validation.valid) {
    const fatalError = maskFailure(
      { code: EngineFailureCode.DefinitionInvalid, params: { problems: validation.problems.join('; ') } },
      mask,
    );
    options.log?.('Fatal', engineFailureMessage(fatalError));
    return { sets: [], stats: emptyStats(), failedPages: [], stopped: false, fatalError, evidence: emptyEvidence() };
  }
  const browser = options.browser && chromiumAvailable(options.browser.executablePath) ? options.browser : undefined;
  if (renderModeOf(def) !== 'http' && !browser) {
    const fatalError: EngineFailure = {
      code: EngineFailureCode.BrowserUnavailable,
      params: { render: renderModeOf(def), hint: CHROMIUM_PATH_HINT },
    };
    options.log?.('Fatal', engineFailureMessage(fatalError));
    return { sets: [], stats: emptyStats(), failedPages: [], stopped: false, fatalError, evidence: emptyEvidence() };
  }
  const rows = options.inputRows.length > 0 ? options.inputRows : [parameterDefaults(def)];
  const numbered = rows.map((row, i) => ({ row, index: i + 1 }));
  const chunks = splitIntoSets(numbered, Math.min(parallelism, numbered.length));
  const resume = usableCheckpoint(options.resume, chunks.length) ?? undefined;
  // The Run's cookie jar is never in a checkpoint: a resumed Run starts a fresh one and logs in again.
  const jar = openCookieJar(def, rows[0]);
  let source: PageSource | undefined;
  const run = new ExtractionRun(
    { ...options, resume, parallelism, maxConcurrency },
    mask,
    openPageSource(options, browser, jar, (opened) => (source = opened)),
    chunks.length,
  );

  const onStop = () => run.abort('stop');
  if (options.signal?.aborted) onStop();
  options.signal?.addEventListener('abort', onStop, { once: true });
  const onDrain = () => run.drain();
  if (options.drainSignal?.aborted) onDrain();
  options.drainSignal?.addEventListener('abort', onDrain, { once: true });
  const timer =
    def.timeoutSeconds !== undefined ? setTimeout(() => run.abort('timeout'), def.timeoutSeconds * 1000) : undefined;

  const sets: ExtractionSet[] = chunks.map((_, i) => ({ set: i + 1, records: [] }));
  let internalLogged = false;

  let loginFailure: EngineFailure | null = null;
  try {
    loginFailure = def.login ? await logInFirst(def, run, source!, rows[0], mask) : null;
    await Promise.all(
      chunks.map(async (chunk, i) => {
        if (loginFailure) return;
        try {
          const sink: RecordSink = options.onRecords
            ? (records) => options.onRecords!(i + 1, records)
            : (records) => {
                for (const record of records) sets[i].records.push(record);
              };
          await run.crawlSet(chunk, sink, i);
        } catch (error) {
          // A bug must not leave other sets running unobserved: stop everything and report it.
          // The detail goes to the run log only; the Run's errorMessage stays generic (no internal text reaches users).
          if (!internalLogged) run.log('Error', `internal error: ${(error as Error)?.message ?? String(error)}`);
          internalLogged = true;
          run.abort('internal');
        }
      }),
    );
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onStop);
    options.drainSignal?.removeEventListener('abort', onDrain);
    await run.close();
  }

  let fatalError: EngineFailure | undefined;
  if (loginFailure && run.abortReason === null) fatalError = loginFailure;
  else if (run.abortReason === 'timeout')
    fatalError = { code: EngineFailureCode.RunTimeout, params: { seconds: def.timeoutSeconds ?? 0 } };
  else if (run.abortReason === 'internal') fatalError = { code: EngineFailureCode.InternalError, params: {} };
  else if (
    run.abortReason === null &&
    !run.drained &&
    run.startFailures.length > 0 &&
    run.startFailures.every((f) => f !== null)
  ) {
    const first = run.startFailures[0];
    const inputs = run.startFailures.length;
    fatalError = inputs > 1 ? { code: first.code, params: { ...first.params, failedInputs: inputs } } : first;
  }
  if (fatalError) run.log('Fatal', engineFailureMessage(fatalError));
  const stopped = run.abortReason === 'stop' || (run.drained && run.abortReason === null);
  const s = run.stats;
  run.log(
    'Info',
    `Extraction ${stopped ? 'stopped' : 'finished'}: ${s.dataCount} records, ${s.pageCount} pages, ${s.errorCount} errors, ` +
      `${s.inputCount} inputs, ${s.traffic} bytes received` +
      parsersOf(run.evidence.evidence),
  );
  run.progress();
  let warning =
    stopped || fatalError !== undefined
      ? undefined
      : qualityProblem(run.evidence.evidence, locatorText(def.list), s.dataCount);
  // A Run that ended normally is judged on its successCriteria: a miss is its failure with failBelow,
  // else its warning unless the quality problem above already says what went wrong.
  const e = run.evidence.evidence;
  const figures = { records: s.dataCount, pagesAttempted: e.requests, pagesFailed: e.failedPages ?? 0 };
  const missed =
    stopped || fatalError !== undefined
      ? undefined
      : criteriaMissed(def.successCriteria, { ...figures, filled: run.criteria.filled, tallied: run.criteria.tallied });
  if (missed && def.successCriteria?.failBelow === true) {
    fatalError = missed;
    warning = undefined;
    run.log('Fatal', engineFailureMessage(missed));
  } else if (missed && !warning) warning = missed;
  if (warning) run.log('Warning', engineFailureMessage(warning));

  return {
    sets,
    stats: { ...run.stats },
    failedPages: run.failedPages,
    stopped,
    ...(fatalError !== undefined ? { fatalError } : {}),
    evidence: run.evidence.evidence,
    ...(warning !== undefined ? { warning: maskFailure(warning, mask) } : {}),
    snapshots: run.snapshots.kept,
  };
}

/** The summary line's parser counts: ", pages parsed: 40 fast, 2 standard". */
function parsersOf(e: RunEvidence): string {
  return e.parser ? `, pages parsed: ${e.parser.fast} fast, ${e.parser.standard} standard` : '';
}
