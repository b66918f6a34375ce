// For Agent Builder tests on small pages written in the test: the draft the Builder proposes for a page and
// a prompt (no LLM), and the records the engine's list extraction gives with it.
import { load } from 'cheerio';
import { extractListPage } from '../../src/engine/page-extract.js';
import { proposeDraft } from '../../src/services/builder/inference/draft.js';

/** The address the test pages are read at. */
export const PAGE_URL = 'https://example.com/page';

export async function draftRecords(html: string, prompt: string) {
  const proposal = await proposeDraft({ page: { $: load(html), url: PAGE_URL }, prompt, fetchPage: async () => null });
  const read = extractListPage(
    { finalUrl: PAGE_URL, body: Buffer.from(html), contentType: 'text/html; charset=utf-8' },
    { list: proposal.definition.list },
  );
  return { proposal, records: read.items.map((i) => i.record) };
}
