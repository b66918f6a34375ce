import { Readable } from 'node:stream';
import type { FailedPage, LogLevel } from './extraction-types.js';
import { CONTENT_TYPES, type StoredFile } from './files.js';
import { createMasker } from './secrets.js';
import type { Storage } from '../storage/index.js';

export type RunLogLevel = LogLevel;
export type RunLogMode = 'Text' | 'TextAndHtml';

export interface RunLogOptions {
  /** Most verbose level kept: Fatal < Error < Warning < Info, each including the more severe ones. */
  logLevel?: RunLogLevel;
  /** TextAndHtml also saves the HTML of failed pages. */
  logMode?: RunLogMode;
  secrets?: string[];
  /** Clock for timestamps (tests). */
  now?: () => Date;
  /** At most this many failed-page HTML files per run (default 100). */
  maxHtmlFiles?: number;
}

export interface RunLog {
  /** Matches the crawler's `log` option. Calls after `finish` are ignored. */
  log: (level: RunLogLevel, message: string) => void;
  /** The last lines kept (at most 1000; masked, level-filtered), without line terminators. */
  lines(): readonly string[];
  /** Closes the log (and, with TextAndHtml, writes the failed pages' HTML). Returns the Log file first. */
  finish(failedPages?: FailedPage[]): Promise<StoredFile[]>;
}

/** The HTML of failed pages is kept beside the log as `failed-page-N.html` (part of the log, not an export). */
export const FAILED_PAGE_HTML_PREFIX = 'failed-page-';

const SEVERITY: Record<RunLogLevel, number> = { Fatal: 0, Error: 1, Warning: 2, Info: 3 };
const TAIL_LINES = 1000;

function splitKey(key: string): { dir: string; name: string } {
  const slash = key.lastIndexOf('/');
  return slash < 0 ? { dir: '', name: key } : { dir: key.slice(0, slash + 1), name: key.slice(slash + 1) };
}

/** One log line: `2026-01-01T00:00:00.000Z [Info] message` on a single line. */
export function formatLogLine(at: Date, level: RunLogLevel, message: string): string {
  return `${at.toISOString()} [${level}] ${message.replace(/\r\n|\r|\n/g, ' ')}`;
}

/** Appends one line to a run's log written earlier (by a run process that could not finish it). */
export async function appendRunLogLine(
  storage: Storage,
  key: string,
  message: string,
  at: Date,
  level: RunLogLevel = 'Fatal',
): Promise<void> {
  await storage.append(key, formatLogLine(at, level, message) + '\n');
}

/**
 * Writes a run's log lines to `key` as they come (memory stays flat whatever the log's length, and a
 * killed run process leaves the lines it wrote), with secrets masked.
 */
export function createRunLog(storage: Storage, key: string, options: RunLogOptions = {}): RunLog {
  const threshold = SEVERITY[options.logLevel ?? 'Info'];
  const mask = createMasker(options.secrets ?? []);
  const now = options.now ?? (() => new Date());
  const maxHtmlFiles = options.maxHtmlFiles ?? 100;
  const tail: string[] = [];
  const writer = storage.openWriter(key);
  let finished = false;

  const log = (level: RunLogLevel, message: string): void => {
    if (finished || SEVERITY[level] > threshold) return;
    // One entry per line keeps the file greppable.
    const line = formatLogLine(now(), level, mask(message));
    writer.write(line + '\n');
    tail.push(line);
    if (tail.length > TAIL_LINES) tail.shift();
  };

  const finish = async (failedPages: FailedPage[] = []): Promise<StoredFile[]> => {
    if (finished) throw new Error('run log already finished');
    const { dir, name } = splitKey(key);
    const htmlFiles: StoredFile[] = [];
    if (options.logMode === 'TextAndHtml') {
      const withHtml = failedPages.filter((page) => page.html !== undefined && page.html !== '');
      for (const page of withHtml.slice(0, maxHtmlFiles)) {
        const htmlName = `${FAILED_PAGE_HTML_PREFIX}${htmlFiles.length + 1}.html`;
        const htmlKey = `${dir}${htmlName}`;
        const { size } = await storage.put(htmlKey, Readable.from([mask(page.html as string)]));
        htmlFiles.push({ key: htmlKey, name: htmlName, fileType: 'Html', contentType: CONTENT_TYPES.Html, size });
        log('Info', `HTML of failed page ${page.url} saved as ${htmlName}`);
      }
      if (withHtml.length > maxHtmlFiles) {
        log(
          'Warning',
          `${withHtml.length - maxHtmlFiles} more failed pages had HTML; only the first ${maxHtmlFiles} were saved`,
        );
      }
    }
    finished = true;
    const { size } = await writer.close();
    return [{ key, name, fileType: 'Log', contentType: CONTENT_TYPES.Log, size }, ...htmlFiles];
  };

  return { log, lines: () => tail, finish };
}
