// The Chromium browsers of one process, shared by the Runs it executes: at most `maxPages` pages open at
// once, a browser retired after `pagesPerBrowser` pages or `idleMs` without pages, new pages held back
// while the browser processes use more than `maxRssMb`, and a browser that crashed replaced on next use.
import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { ConcurrencyLimiter } from '../limiter.js';

export interface BrowserPoolOptions {
  executablePath: string;
  maxPages: number;
  maxRssMb: number;
  pagesPerBrowser?: number;
  idleMs?: number;
}

export const DEFAULT_PAGES_PER_BROWSER = 500;
export const DEFAULT_BROWSER_IDLE_MS = 60_000;
const RSS_POLL_MS = 250;
/** Chromium flags: no sandbox (containers run it unprivileged), nothing phoning home, no crash handler. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-dev-shm-usage',
  '--disable-crash-reporter',
  '--no-first-run',
  '--mute-audio',
];

interface Slot {
  browser: Browser;
  open: number;
  served: number;
  retiring: boolean;
}

export interface PageLease {
  browser: Browser;
  release(): void;
}

export class BrowserPool {
  readonly #limiter: ConcurrencyLimiter;
  #current: Promise<Slot> | null = null;
  readonly #slots = new Set<Slot>();
  #idleTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: BrowserPoolOptions) {
    this.#limiter = new ConcurrencyLimiter(options.maxPages);
  }

  /** How many pages may be open at once. */
  get maxPages(): number {
    return this.options.maxPages;
  }

  /** Waits for a page slot (and for memory below the ceiling); `signal` gives up waiting. */
  async acquire(signal: AbortSignal): Promise<PageLease> {
    const releaseSlot = await this.#limiter.acquire(signal);
    try {
      while (this.rssMb() > this.options.maxRssMb && this.#openPages() > 0) {
        signal.throwIfAborted();
        await new Promise((resolve) => setTimeout(resolve, RSS_POLL_MS));
      }
      signal.throwIfAborted();
      const slot = await this.#slot();
      slot.open++;
      slot.served++;
      if (slot.served >= (this.options.pagesPerBrowser ?? DEFAULT_PAGES_PER_BROWSER)) this.#retire(slot);
      this.#clearIdle();
      let released = false;
      return {
        browser: slot.browser,
        release: () => {
          if (released) return;
          released = true;
          slot.open--;
          releaseSlot();
          if (slot.retiring && slot.open === 0) void this.#closeSlot(slot);
          if (this.#openPages() === 0) this.#armIdle();
        },
      };
    } catch (error) {
      releaseSlot();
      throw error;
    }
  }

  /** Processes of every browser this process launched (Chromium's helpers included), counted from /proc. */
  processCount(): number {
    return browserProcesses().length;
  }

  /** Resident memory of the browsers' process trees, in MiB. */
  rssMb(): number {
    let pages = 0;
    for (const pid of browserProcesses()) {
      try {
        pages += Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]);
      } catch {
        // The process ended meanwhile.
      }
    }
    return (pages * 4096) / (1024 * 1024);
  }

  async close(): Promise<void> {
    this.#clearIdle();
    this.#current = null;
    await Promise.all([...this.#slots].map((slot) => this.#closeSlot(slot)));
  }

  #openPages(): number {
    let open = 0;
    for (const slot of this.#slots) open += slot.open;
    return open;
  }

  #slot(): Promise<Slot> {
    this.#current ??= this.#launch();
    return this.#current;
  }

  async #launch(): Promise<Slot> {
    const launching = this.#current;
    try {
      // Loaded at the first launch: it takes longer to load than the rest of the engine (0.4 s here), and
      // most processes (the API, run processes of HTTP Runs) never start a browser.
      const { chromium } = await import('playwright-core');
      const browser = await chromium.launch({
        executablePath: this.options.executablePath,
        args: CHROMIUM_ARGS,
        handleSIGINT: false,
      });
      const slot: Slot = { browser, open: 0, served: 0, retiring: false };
      this.#slots.add(slot);
      // A crash fails the pages it had (their renderer retries them) and the next page gets a new browser.
      browser.on('disconnected', () => {
        this.#slots.delete(slot);
        this.#retire(slot);
      });
      return slot;
    } catch (error) {
      if (this.#current === launching) this.#current = null;
      throw error;
    }
  }

  #retire(slot: Slot): void {
    slot.retiring = true;
    void this.#current?.then((current) => {
      if (current === slot) this.#current = null;
    });
    if (slot.open === 0) void this.#closeSlot(slot);
  }

  async #closeSlot(slot: Slot): Promise<void> {
    this.#slots.delete(slot);
    await slot.browser.close().catch(() => undefined);
  }

  #armIdle(): void {
    this.#clearIdle();
    this.#idleTimer = setTimeout(() => void this.close(), this.options.idleMs ?? DEFAULT_BROWSER_IDLE_MS);
    this.#idleTimer.unref();
  }

  #clearIdle(): void {
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
  }
}

/**
 * The processes below this one that are not Node's: the browsers and their helpers, without a worker's
 * run processes (which would otherwise count against the browsers' memory ceiling).
 */
function browserProcesses(): number[] {
  const node = realpathSync(process.execPath);
  return descendants(process.pid, (pid) => {
    try {
      return readlinkSync(`/proc/${pid}/exe`) === node;
    } catch {
      return false;
    }
  });
}

/** Every process below `root`, from /proc (Linux); `skip` leaves a process out with its own children. */
export function descendants(root: number, skip?: (pid: number) => boolean): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // Gone meanwhile.
    }
  }
  const found: number[] = [];
  const queue = [...(children.get(root) ?? [])];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    if (skip?.(pid)) continue;
    found.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}
