// The thread that parses and extracts pages for page-worker.ts, one page at a time. It holds nothing
// between pages, so ending it in the middle of one loses nothing but that page.
import { parentPort } from 'node:worker_threads';
import { UnreadablePage } from './json-page.js';
import { runPageTask, type PageTask } from './page-extract.js';
import type { PageReply } from './page-worker.js';

const port = parentPort!;
port.on('message', (task: PageTask) => {
  let reply: PageReply;
  try {
    // A Buffer arrives as a plain Uint8Array: viewed as a Buffer again without copying.
    const { body } = task.page;
    const page = { ...task.page, body: Buffer.from(body.buffer, body.byteOffset, body.byteLength) };
    reply = { ok: true, value: runPageTask({ ...task, page }) };
  } catch (error) {
    const message = (error as Error)?.message ?? String(error);
    reply = { ok: false, message, ...(error instanceof UnreadablePage ? { unreadable: true } : {}) };
  }
  port.postMessage(reply);
});
port.postMessage('ready');
