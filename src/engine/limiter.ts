interface Waiter {
  grant: () => void;
  reject: (reason: unknown) => void;
  signal?: AbortSignal;
}

/**
 * A counting semaphore shared by every request of one run, so `maxConcurrency`
 * bounds simultaneous HTTP requests across all parallel sets.
 */
export class ConcurrencyLimiter {
  readonly #capacity: number;
  #active = 0;
  #waiting: Waiter[] = [];
  /**
   * Signals with one listener that rejects all their waiters: a listener per waiting request (every
   * page of a list waits at once) cost more than the wait itself.
   */
  readonly #watched = new WeakSet<AbortSignal>();

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`concurrency must be a positive integer, got ${capacity}`);
    }
    this.#capacity = capacity;
  }

  get active(): number {
    return this.#active;
  }

  get pending(): number {
    return this.#waiting.length;
  }

  /** Resolves with a release function once a slot is free; rejects if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    // The signal's own reason (a StopError, an AbortError...) is what callers tell apart.
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#active < this.#capacity) {
      this.#active++;
      return Promise.resolve(this.#releaser());
    }
    if (signal && !this.#watched.has(signal)) {
      this.#watched.add(signal);
      signal.addEventListener('abort', () => this.#rejectWaiting(signal), { once: true });
    }
    return new Promise((resolve, reject) => {
      this.#waiting.push({ grant: () => resolve(this.#releaser()), reject, signal });
    });
  }

  #rejectWaiting(signal: AbortSignal): void {
    const rejected = this.#waiting.filter((w) => w.signal === signal);
    this.#waiting = this.#waiting.filter((w) => w.signal !== signal);
    for (const waiter of rejected) waiter.reject(signal.reason);
  }

  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(signal);
    try {
      return await task();
    } finally {
      release();
    }
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      // The slot passes straight to the next waiter, so `active` stays the same.
      if (next) next.grant();
      else this.#active--;
    };
  }
}
