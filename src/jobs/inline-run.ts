// A Run executed in the worker process itself, behind the same messages as a run process: a Run that
// fetches one page (engine's `fetchesOnePage`) costs less than the hop to a process and back.
// A kill cannot SIGKILL the worker, so it aborts the Run and ends it once its host has stopped
// writing: the one request is aborted at once, and a page over its CPU budget is ended on its thread.
import { EventEmitter } from 'node:events';
import type { ChildMessage, ParentMessage } from '../services/runs/run-protocol.js';
import { createRunHost } from './run-host.js';

/** What the runs processor and the pool use of a run process: a ChildProcess, or an inline Run. */
export interface RunProcess {
  readonly connected: boolean;
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | null;
  send(msg: ParentMessage): boolean;
  kill(signal?: NodeJS.Signals): boolean;
  on(event: 'message', listener: (msg: ChildMessage) => void): this;
  on(event: 'exit', listener: (code: number | null) => void): this;
  off(event: 'message', listener: (msg: ChildMessage) => void): this;
  off(event: 'exit', listener: (code: number | null) => void): this;
  removeAllListeners(event: 'message' | 'exit'): this;
}

export class InlineRun extends EventEmitter implements RunProcess {
  connected = true;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  readonly #host = createRunHost({
    // Asynchronous, as over IPC: the processor never re-enters itself from its own `send`. A message
    // sent before the Run ended is delivered, before `exit` (the host says `error`, then ends the Run at
    // once); one sent after a kill is dropped, as a killed process sends nothing.
    send: (msg) => {
      if (this.connected) queueMicrotask(() => this.emit('message', msg));
    },
    workerPid: process.pid,
    // After an unexpected error the host says `error`; the worker then ends the Run (nothing is reused).
    onFatal: () => this.#exit(1, null),
    where: 'in the worker process',
  });

  send(msg: ParentMessage): boolean {
    if (!this.connected) return false;
    queueMicrotask(() => this.#host.receive(msg));
    return true;
  }

  /** Ends the Run: nothing more is exported, and `exit` comes once the host has closed its files. */
  kill(): boolean {
    if (!this.connected) return false;
    this.connected = false;
    void this.#host.halt().finally(() => this.#exit(null, 'SIGKILL'));
    return true;
  }

  #exit(code: number | null, signal: NodeJS.Signals | null) {
    if (this.exitCode !== null || this.signalCode !== null) return;
    this.connected = false;
    this.exitCode = code;
    this.signalCode = signal;
    queueMicrotask(() => this.emit('exit', code, signal));
  }
}
