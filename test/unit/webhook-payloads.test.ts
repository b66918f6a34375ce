// builder.session.ready's payload stays under 20 KB: a large preview is left out first, then the draft,
// each with a flag and a link to the session.
import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/services/builder/builder.service.js';
import { MAX_PAYLOAD_BYTES, sessionReadyData } from '../../src/services/webhooks/events.js';

const session = (previewChars: number, draftChars: number): SessionView => ({
  sessionId: 'bs_1',
  status: 'ready' as SessionView['status'],
  prompt: 'the products',
  url: 'https://shop.test/',
  spaceId: 3,
  mode: 'prompt',
  draft: { startUrl: 'https://shop.test/', list: { selector: `.${'p'.repeat(draftChars)}`, fields: [{ name: 'x' }] } },
  preview: [{ title: 'x'.repeat(previewChars) }],
  agentId: null,
  error: null,
  created: new Date('2026-11-26T00:00:00Z'),
  updated: new Date('2026-11-26T00:00:01Z'),
});
const size = (data: unknown) =>
  Buffer.byteLength(JSON.stringify({ type: 'builder.session.ready', timestamp: new Date().toISOString(), data }));

describe('builder.session.ready data', () => {
  it('is the session itself when it fits', () => {
    const s = session(100, 10);
    expect(sessionReadyData(s)).toBe(s);
  });

  it('leaves out a preview that does not fit, and says where the session is', () => {
    const data = sessionReadyData(session(30_000, 10));
    expect(data).toMatchObject({ preview: null, previewTruncated: true, sessionUrl: '/api/v1/agent-builder/bs_1' });
    expect(data.draft).not.toBeNull();
    expect(data.draftTruncated).toBeUndefined();
    expect(size(data)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
  });

  it('then leaves out the draft too', () => {
    const data = sessionReadyData(session(30_000, 30_000));
    expect(data).toMatchObject({ preview: null, previewTruncated: true, draft: null, draftTruncated: true });
    expect(size(data)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
  });
});
