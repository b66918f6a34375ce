interface Waiter {
  grant: () => void;
  reject: (reason: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/**
 * A counting semaphore shared by every request of one run, so `maxConcurrency`
 * bounds simultaneous HTTP requests across all parallel sets.
 */
export class ConcurrencyLimiter {
  readonly #capacity: number;
  #active = 0;
  readonly #waiting: Waiter[] = [];

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
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#active < this.#capacity) {
      this.#active++;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((resolve, reject) => {
      const entry: Waiter = {
        grant: () => {
          if (entry.onAbort) signal?.removeEventListener('abort', entry.onAbort);
          resolve(this.#releaser());
        },
        reject,
        signal,
      };
      if (signal) {
        entry.onAbort = () => {
          const index = this.#waiting.indexOf(entry);
          if (index >= 0) this.#waiting.splice(index, 1);
          reject(signal.reason);
        };
        signal.addEventListener('abort', entry.onAbort, { once: true });
      }
      this.#waiting.push(entry);
    });
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
