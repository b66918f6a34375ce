// Snapshots of the pages that explain a Run that gave nothing usable: a list page whose list matched
// nothing (a redesign, a block page answering 200) or whose records all missed a required field. The
// page is kept as the engine saw it (HTML, secrets masked), plus the screenshot Chromium took when it
// rendered the page, and stored as Run files `snapshot-N.html` / `snapshot-N.png` at the Run's end.
// Bounded: at most MAX_SNAPSHOTS pages per Run attempt, each file cut or left out past its size limit.
import { Readable } from 'node:stream';
import { CONTENT_TYPES, type StoredFile } from './files.js';
import type { FetchedPage } from './page.js';
import { decodeText } from './parse.js';
import type { Storage } from '../storage/index.js';

/** Pages kept per Run attempt. */
export const MAX_SNAPSHOTS = 5;
/** An HTML snapshot is cut to this many bytes of the page's body. */
export const SNAPSHOT_HTML_MAX_BYTES = 512 * 1024;
/** A screenshot larger than this is not kept (the HTML still is). */
export const SNAPSHOT_PNG_MAX_BYTES = 2 * 1024 * 1024;

export type SnapshotReason = 'emptyList' | 'requiredMissing';

/** A kept page, as the Run's evidence names it. */
export interface SnapshotRef {
  /** The Run file of its HTML (`snapshot-1.html`). */
  html: string;
  /** The Run file of its screenshot, when the page was rendered in the browser. */
  png?: string;
  url: string;
  reason: SnapshotReason;
}

export interface PageSnapshot extends SnapshotRef {
  htmlText: string;
  pngBytes?: Buffer;
}

/** Keeps the first MAX_SNAPSHOTS pages it is given; `mask` takes the Run's secrets out of URL and HTML. */
export class SnapshotKeeper {
  readonly kept: PageSnapshot[] = [];

  /** `onKept` names each kept page in the Run's evidence; URLs are cut to `maxUrlLength`. */
  constructor(
    private readonly mask: (text: string) => string,
    private readonly maxUrlLength: number,
    private readonly onKept: (ref: SnapshotRef) => void,
  ) {}

  /** Keeps `page` when there is room (at most MAX_SNAPSHOTS). */
  keep(page: FetchedPage, reason: SnapshotReason): void {
    if (this.kept.length >= MAX_SNAPSHOTS) return;
    const n = this.kept.length + 1;
    const htmlText = this.mask(decodeText(page.body.subarray(0, SNAPSHOT_HTML_MAX_BYTES), page.contentType));
    const png = page.screenshot && page.screenshot.length <= SNAPSHOT_PNG_MAX_BYTES ? page.screenshot : undefined;
    const ref: SnapshotRef = {
      html: `snapshot-${n}.html`,
      ...(png ? { png: `snapshot-${n}.png` } : {}),
      url: this.mask(page.finalUrl).slice(0, this.maxUrlLength),
      reason,
    };
    this.kept.push({ ...ref, htmlText, ...(png ? { pngBytes: Buffer.from(png) } : {}) });
    this.onKept(ref);
  }
}

function joinKey(prefix: string, name: string): string {
  const trimmed = prefix.replace(/\/+$/, '');
  return trimmed === '' ? name : `${trimmed}/${name}`;
}

/** Stores the snapshots in the Run's folder (`keyPrefix`), through whichever storage driver the Run uses. */
export async function writeSnapshots(
  storage: Storage,
  keyPrefix: string,
  snapshots: readonly PageSnapshot[],
): Promise<StoredFile[]> {
  const files: StoredFile[] = [];
  for (const s of snapshots) {
    const htmlKey = joinKey(keyPrefix, s.html);
    const html = await storage.put(htmlKey, Readable.from([Buffer.from(s.htmlText, 'utf8')]));
    files.push({ key: htmlKey, name: s.html, fileType: 'Html', contentType: CONTENT_TYPES.Html, size: html.size });
    if (s.png && s.pngBytes) {
      const pngKey = joinKey(keyPrefix, s.png);
      const png = await storage.put(pngKey, Readable.from([s.pngBytes]));
      files.push({ key: pngKey, name: s.png, fileType: 'Png', contentType: CONTENT_TYPES.Png, size: png.size });
    }
  }
  return files;
}
