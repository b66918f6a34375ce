// The Agent Builder's work, run by the `builder` queue's worker: read the page through the engine's
// HTTP layer, propose (or refine) a draft, let the LLM improve it when one is configured, extract a
// preview with the real engine, and say at each step what happened. A stopped session is left
// alone: every write first checks, under the row lock, that the session still waits for this step.
import type { BrowserSettings } from '../../engine/index.js';
import type { Prisma } from '../../db/prisma.js';
import { runExtraction } from '../../engine/crawler.js';
import { engineFailureMessage } from '../../engine/failure-codes.js';
import type { AgentDefinition } from '../../engine/definition.js';
import { unseal } from '../../lib/crypto.js';
import type { Clock } from '../../lib/clock.js';
import { sessionReadyData } from '../webhooks/events.js';
import type { WebhooksRepository } from '../webhooks/webhooks.repository.js';
import type { BuilderRepository, NewEvent } from './builder.repository.js';
import { sessionView } from './builder.service.js';
import type { EventsPublisher } from './events-bus.js';
import {
  checkDraft,
  NoRecordsError,
  proposeDraft,
  refineDraft,
  type BuilderPage,
  type Proposal,
} from './inference/draft.js';
import { ONE_RECORD_SELECTOR } from './inference/page-record.js';
import { SEARCH_BUDGET_MS, searchBudget } from './inference/budget.js';
import { describeCandidates, refineWithLlm, type LlmConfig } from './llm.js';
import { createPageReader } from './page-reader.js';
import { SessionStatus } from './session-state.js';

const PREVIEW_RECORDS = 10;

/** The step no longer applies (stopped, or superseded); nothing more is written. */
class StepAbandoned extends Error {}

export function createBuilderWorkService(deps: {
  repo: BuilderRepository;
  publisher: EventsPublisher;
  /** The webhook outbox (builder.session.ready). */
  outbox: Pick<WebhooksRepository, 'insertEvent'>;
  clock: Clock;
  config: {
    encryptionKey: Buffer;
    engineAllowPrivateTargets: boolean;
    runs: { requestTimeoutMs: number; pageCpuSeconds: number };
    builder: { llm: LlmConfig | null };
    /** The worker's Chromium: pages whose records are built by script are rendered. */
    browser?: BrowserSettings;
  };
}) {
  const { repo, publisher, outbox, clock, config } = deps;

  /**
   * Appends events (and applies a change) only while the session is processing this step. Reaching
   * ready puts `builder.session.ready` in the webhook outbox, in the same transaction.
   */
  async function write(
    sessionId: string,
    step: number,
    events: NewEvent[],
    data?: Prisma.AgentBuilderSessionUpdateInput,
  ): Promise<void> {
    const ok = await repo.withLocked(sessionId, clock.now(), (row) => {
      if (row.status !== SessionStatus.Processing || row.step !== step) return { result: false };
      if (data?.status !== SessionStatus.Ready) return { data, events, result: true };
      return {
        data,
        events,
        result: true,
        after: (tx, changed) =>
          outbox.insertEvent(tx, {
            organizationId: changed.organizationId,
            type: 'builder.session.ready',
            spaceId: changed.spaceId,
            data: sessionReadyData(sessionView(changed)),
          }),
      };
    });
    if (!ok) throw new StepAbandoned();
    await publisher.publish({ sessionId, status: (data?.status as string | undefined) ?? SessionStatus.Processing });
  }

  const emit = (sessionId: string, step: number, type: string, message: string, data?: Prisma.InputJsonValue) =>
    write(sessionId, step, [{ type, message, ...(data !== undefined ? { data } : {}) }]);

  async function proxyOf(proxyPoolId: number | null): Promise<string | undefined> {
    if (proxyPoolId === null) return undefined;
    const pool = await repo.findProxyPool(proxyPoolId);
    if (!pool) return undefined;
    const proxies = JSON.parse(unseal(config.encryptionKey, pool.proxies)) as string[];
    return proxies[Math.floor(Math.random() * proxies.length)];
  }

  async function fail(sessionId: string, step: number, message: string): Promise<void> {
    await write(sessionId, step, [{ type: 'error', message }], { status: SessionStatus.Error, error: message }).catch(
      (err) => {
        if (!(err instanceof StepAbandoned)) throw err;
      },
    );
  }

  return {
    /** Runs one step of a session; resolves quietly when the session was stopped meanwhile. */
    async runStep(sessionId: string, step: number, signal: AbortSignal): Promise<'ready' | 'error' | 'skipped'> {
      const session = await repo.find(sessionId);
      if (!session || session.status !== SessionStatus.Processing || session.step !== step || !session.url)
        return 'skipped';
      const proxyUrl = await proxyOf(session.proxyPoolId);
      const reader = createPageReader({
        allowPrivateTargets: config.engineAllowPrivateTargets,
        requestTimeoutMs: config.runs.requestTimeoutMs,
        proxyUrl,
        signal,
        browser: config.browser,
      });
      try {
        // A draft made from the rendered page is refined on the rendered page.
        const rendering = step > 1 && (session.draft as AgentDefinition | null)?.render === 'browser';
        const read = rendering ? await reader.render(session.url) : await reader.read(session.url);
        if (!read.ok) {
          if (read.aborted || signal.aborted) return 'skipped';
          await fail(
            sessionId,
            step,
            `${read.message}. Check the address (it must be reachable from the server), then start a new session.`,
          );
          return 'error';
        }
        let page: BuilderPage = read.page;
        const redirected = page.url !== session.url ? ` (redirected to ${page.url})` : '';
        await emit(
          sessionId,
          step,
          'fetched',
          `Fetched ${session.url}${redirected}: HTTP ${read.status}, ${read.bytes} bytes.`,
          { url: page.url, status: read.status, bytes: read.bytes },
        );
        // The search's time from here on, on the injected clock: one budget for the step, so that a
        // page rendered in the browser after its served HTML showed no records is searched in what is left.
        const budget = searchBudget(SEARCH_BUDGET_MS, () => clock.now().getTime());
        const fetchPage = async (url: string) => {
          const r = await reader.read(url);
          return r.ok ? r.page : null;
        };

        let proposal: Proposal;
        try {
          if (step === 1 || !session.draft) {
            try {
              proposal = await proposeDraft({ page, prompt: session.prompt, fetchPage, budget });
            } catch (err) {
              // No repeated records in the served HTML, but scripts: read the page the browser builds.
              if (!(err instanceof NoRecordsError) || page.$('script').length === 0 || !reader.canRender()) throw err;
              const rendered = await reader.render(session.url);
              if (!rendered.ok) throw err;
              page = rendered.page;
              await emit(
                sessionId,
                step,
                'rendered',
                `The served HTML has no repeated records but carries scripts: rendered ${session.url} in the browser (${rendered.bytes} bytes); the draft renders its pages too (render: "browser", waiting for its list).`,
                { url: page.url, bytes: rendered.bytes },
              );
              const fromRendered = await proposeDraft({ page, prompt: session.prompt, fetchPage, budget });
              // The list arrives after the page's scripts run: its Runs wait for it.
              const { definition: d } = fromRendered;
              proposal = { ...fromRendered, definition: { ...d, render: 'browser', waitFor: d.list.selector } };
            }
            const top = proposal.candidates
              .slice(0, 3)
              .map((c) => `'${c.selector}' (${c.count} records${c.why ? `; ${c.why}` : ''})`)
              .join(', ');
            await emit(sessionId, step, 'candidates', `Ranked the repeated structures of the page; the best: ${top}.`, {
              candidates: describeCandidates(proposal.candidates.slice(0, 3)) as unknown as Prisma.InputJsonValue,
            });
            if (config.builder.llm && proposal.definition.list.selector === ONE_RECORD_SELECTOR) {
              // The LLM chooses among repeated records; a page read as one record has none to offer it.
              await emit(
                sessionId,
                step,
                'llm',
                'The page is read as one record: the LLM, which chooses among repeated records, is not asked.',
              );
            } else if (config.builder.llm) {
              await emit(
                sessionId,
                step,
                'llm',
                'Asking the configured LLM to choose among the candidates and name the fields.',
              );
              const outcome = await refineWithLlm({
                config: config.builder.llm,
                prompt: session.prompt,
                candidates: proposal.candidates,
                heuristic: proposal.definition,
                page,
                signal,
              });
              if (signal.aborted) return 'skipped';
              if (outcome.accepted) {
                proposal = {
                  ...proposal,
                  definition: outcome.definition,
                  notes: [...proposal.notes, `LLM suggestion accepted: ${outcome.reason}.`],
                };
                await emit(sessionId, step, 'llm', `LLM suggestion accepted: ${outcome.reason}.`);
              } else {
                await emit(
                  sessionId,
                  step,
                  'llm',
                  `LLM suggestion not used (${outcome.reason}); keeping the draft read from the page structure.`,
                );
              }
            }
          } else {
            const message = (await repo.latestEvent(sessionId, 'message'))?.message ?? '';
            proposal = await refineDraft({
              page,
              draft: session.draft as unknown as AgentDefinition,
              message,
              fetchPage,
            });
          }
        } catch (err) {
          if (err instanceof NoRecordsError) {
            await fail(sessionId, step, err.message);
            return 'error';
          }
          throw err;
        }
        const problems = checkDraft(proposal.definition, page);
        if (problems.length > 0) {
          await fail(sessionId, step, `The draft does not work on the page: ${problems.join('; ')}.`);
          return 'error';
        }
        const definition = proposal.definition;
        await emit(sessionId, step, 'draft', `Draft proposed. ${proposal.notes.join(' ')}`, {
          definition: definition as unknown as Prisma.InputJsonValue,
          notes: proposal.notes,
        });

        // The preview: the real engine on the first page only, detail pages followed as the Agent would for
        // the records the preview shows (not for every record of the page: each is a request).
        const { next: _next, ...firstPage } = definition;
        const result = await runExtraction({
          definition: definition.follow ? { ...firstPage, maxRecords: PREVIEW_RECORDS } : firstPage,
          inputRows: [],
          allowPrivateTargets: config.engineAllowPrivateTargets,
          requestTimeoutMs: config.runs.requestTimeoutMs,
          pageCpuSeconds: config.runs.pageCpuSeconds,
          maxConcurrency: 2,
          maxRetries: 1,
          proxyUrl,
          signal,
          // A draft that renders its pages is previewed in the browser, as its Runs will be.
          browser: reader.canRender() ? config.browser : undefined,
        });
        if (signal.aborted || result.stopped) return 'skipped';
        const records = result.sets.flatMap((s) => s.records);
        const preview = records.slice(0, PREVIEW_RECORDS);
        const previewMessage = result.fatalError
          ? `Preview failed: ${engineFailureMessage(result.fatalError)}.`
          : definition.follow
            ? `Preview: the first ${records.length} records of the first page with their detail pages (the Agent reads every record${definition.next ? ' and the pages after it' : ''} when it runs).`
            : `Preview: the draft extracts ${records.length} records from the first page${definition.next ? ' (more pages follow when the Agent runs)' : ''}.`;
        await emit(sessionId, step, 'preview', previewMessage, {
          records: preview as Prisma.InputJsonValue,
          count: records.length,
        });
        await write(
          sessionId,
          step,
          [
            {
              type: 'ready',
              message:
                "Draft ready: finish to create the Agent, or send a message to change it (e.g. 'also take the rating', 'drop the image').",
            },
          ],
          {
            status: SessionStatus.Ready,
            draft: definition as unknown as Prisma.InputJsonValue,
            preview: preview as Prisma.InputJsonValue,
          },
        );
        return 'ready';
      } catch (err) {
        if (err instanceof StepAbandoned || signal.aborted) return 'skipped';
        await fail(
          sessionId,
          step,
          'The builder failed unexpectedly while reading the page; try again or start a new session.',
        );
        throw err;
      } finally {
        await reader.close();
      }
    },
  };
}
export type BuilderWorkService = ReturnType<typeof createBuilderWorkService>;
