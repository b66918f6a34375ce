// Operators: grant-credits records a Grant transaction; `credits` shows an organization's balance,
// grants and ledger. The CLI runs as its own process against the test database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.js';
import { runNode } from '../helpers/process.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx?.close());

describe('billing CLI', () => {
  it('grant-credits records a Grant transaction; credits prints the balance, grants and ledger', async () => {
    const org = await ctx.bootstrap({ credits: 100 });
    const expires = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const grant = await runNode(
      [
        'src/cli.ts',
        'grant-credits',
        '--org',
        String(org.organizationId),
        '--amount',
        '12.5',
        '--expires',
        expires,
        '--message',
        'Promo',
      ],
      ctx.env,
    );
    expect(grant.code, grant.stderr).toBe(0);
    expect(JSON.parse(grant.stdout)).toMatchObject({
      organizationId: org.organizationId,
      amount: 12.5,
      availableCredits: 112.5,
      expiresAt: expires,
    });

    const tx = await ctx.db.creditTransaction.findMany({
      where: { organizationId: org.organizationId },
      orderBy: { id: 'asc' },
    });
    expect(tx.map((t) => [t.transactionType, t.amount.toString(), t.balance.toString(), t.message])).toEqual([
      ['Grant', '100', '100', 'Initial credits'],
      ['Grant', '12.5', '112.5', 'Promo'],
    ]);

    const shown = await runNode(
      ['src/cli.ts', 'credits', '--org', String(org.organizationId), '--limit', '1'],
      ctx.env,
    );
    expect(shown.code, shown.stderr).toBe(0);
    const out = JSON.parse(shown.stdout);
    expect(out).toMatchObject({ organizationId: org.organizationId, availableCredits: '112.5' });
    expect(
      out.grants.map((g: { amount: string; remaining: string; expiresAt: string | null }) => [
        g.amount,
        g.remaining,
        g.expiresAt,
      ]),
    ).toEqual([
      ['100', '100', null],
      ['12.5', '12.5', expires],
    ]);
    expect(out.transactions).toHaveLength(1);
    expect(out.transactions[0]).toMatchObject({
      transactionType: 'Grant',
      amount: '12.5',
      balance: '112.5',
      message: 'Promo',
    });

    const bad = await runNode(
      ['src/cli.ts', 'grant-credits', '--org', String(org.organizationId), '--amount', '0.0000001'],
      ctx.env,
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('at most 6 decimal places');
    const missing = await runNode(['src/cli.ts', 'credits', '--org', '999999'], ctx.env);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe('error: no organization 999999');
    // Each CLI call is a process start with tsx: slow on a loaded machine.
  }, 120_000);
});
