// The extraction language on the browser path: XPath list, next and fields, nested multiple fields and
// regex steps on pages built by script, rendered by the system's Chromium (render 'browser' and 'auto').
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSharedBrowserPool } from '../../src/engine/browser/index.js';
import type { AgentDefinition } from '../../src/engine/definition.js';
import { runExtraction } from '../../src/engine/index.js';
import { SCRIPT_ITEMS, startScriptSite, type ScriptSite } from '../helpers/script-site.js';

const browser = { executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', maxPages: 4, maxRssMb: 4096 };
let site: ScriptSite;
beforeAll(async () => {
  site = await startScriptSite();
});
afterAll(async () => {
  await closeSharedBrowserPool();
  await site.close();
});

const list: AgentDefinition['list'] = {
  xpath: "//li[@class='item']",
  fields: [
    { name: 'name', xpath: './a/text()' },
    { name: 'price', selector: '.price', transform: [{ regex: '^(\\d+)', group: 1 }, 'number'] },
    { name: 'parts', xpath: './*', multiple: true, fields: [{ name: 'tag', xpath: 'name()' }] },
  ],
};

async function records(definition: Omit<AgentDefinition, 'list'>) {
  const result = await runExtraction({
    definition: { ...definition, list },
    inputRows: [],
    allowPrivateTargets: true,
    browser,
    retryBaseDelayMs: 10,
  });
  expect(result.fatalError).toBeUndefined();
  return result.sets.flatMap((s) => s.records);
}

describe('the extraction language on rendered pages', () => {
  it('scrolls while the XPath list grows, and reads XPath, regex and nested multiple fields', async () => {
    const got = await records({ startUrl: `${site.url}/scroll`, render: 'browser', waitFor: 'li.item', scroll: 10 });
    expect(got).toHaveLength(SCRIPT_ITEMS);
    expect(got[0]).toEqual({ name: 'Item 1', price: 1, parts: [{ tag: 'a' }, { tag: 'span' }] });
  });

  it('clicks a Load more button given by XPath as next', async () => {
    const got = await records({
      startUrl: `${site.url}/more`,
      render: 'browser',
      waitFor: 'li.item',
      next: { xpath: "//*[@id='more']" },
    });
    expect(got).toHaveLength(SCRIPT_ITEMS);
  });

  it('auto renders a page whose XPath list matches nothing in the served HTML', async () => {
    const got = await records({ startUrl: `${site.url}/xhr`, render: 'auto', waitFor: 'li.item' });
    expect(got).toHaveLength(SCRIPT_ITEMS);
  });
});
