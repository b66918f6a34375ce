import type { Dispatcher } from 'undici';
import { AttemptFailure } from './http-failure.js';

export interface RawResponse {
  status: number;
  headers: Dispatcher.ResponseData['headers'];
  body: Buffer;
}

export function header(headers: Dispatcher.ResponseData['headers'], name: string): string | null {
  const value = headers[name];
  if (Array.isArray(value)) return value[0] ?? null;
  return value ?? null;
}

/**
 * One GET as an undici dispatch handler: the body is collected as it arrives, counted and cut at the
 * size limit, with no response stream or abort signal per request (for small pages those cost more
 * than the page). Settles once; `abort` works before the request reaches a socket too.
 */
export class PageExchange implements Dispatcher.DispatchHandler {
  readonly promise: Promise<RawResponse>;
  #resolve!: (response: RawResponse) => void;
  #reject!: (error: unknown) => void;
  #settled = false;
  #controller: Dispatcher.DispatchController | null = null;
  #reason: Error | null = null;
  #status = 0;
  #headers: Dispatcher.ResponseData['headers'] = {};
  #chunks: Buffer[] = [];
  #size = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly onBytes: (count: number) => void,
    /** Called when the request goes on a connection (the host gate spaces requests from then). */
    private readonly onStart?: () => void,
  ) {
    this.promise = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  abort(reason: Error): void {
    if (this.#settled) return;
    this.#reason ??= reason;
    if (this.#controller) this.#controller.abort(reason);
    else this.#fail(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    if (this.#reason) controller.abort(this.#reason);
    else {
      this.#controller = controller;
      this.onStart?.();
    }
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Dispatcher.ResponseData['headers'],
  ): void {
    if (statusCode < 200) return; // 1xx: the final answer follows
    this.#status = statusCode;
    this.#headers = headers;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#size += chunk.length;
    this.onBytes(chunk.length);
    if (this.#size > this.maxBytes) {
      this.abort(new AttemptFailure('too-large', `response body exceeds ${this.maxBytes} bytes`, false));
      return;
    }
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    this.#settled = true;
    // Copied: the chunks are views of the socket's read buffers.
    this.#resolve({ status: this.#status, headers: this.#headers, body: Buffer.concat(this.#chunks, this.#size) });
    this.#chunks = [];
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#fail(this.#reason ?? error);
  }

  #fail(error: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#chunks = [];
    this.#reject(error);
  }
}
