import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/engine/http.js';
import { classifyAddress, isPrivateAddress } from '../../src/engine/address-class.js';
import { resolvePublic, TargetRefusedError, type ResolveHost } from '../../src/engine/ssrf.js';

const assertPublicTarget = (url: URL, resolveHost: ResolveHost) =>
  resolvePublic(url, { allowPrivateTargets: false, resolveHost }).then(() => undefined);
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['169.254.0.1', 'link-local'],
    ['100.64.0.1', 'shared'],
    ['100.127.255.255', 'shared'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['ff02::1', 'multicast'],
    ['fec0::1', 'private'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:10.1.2.3', 'private'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['2002:c0a8:0101::1', 'private'],
    ['[::1]', 'loopback'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.15.255.255',
    '172.32.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '169.253.255.255',
    '11.0.0.1',
    '2001:4860:4860::8888',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    'fbff::1',
    'fe7f::1',
  ])('%s is public', (address) => {
    expect(classifyAddress(address)).toBe('public');
    expect(isPrivateAddress(address)).toBe(false);
  });

  it('treats anything unparsable as not public', () => {
    expect(classifyAddress('localhost')).toBe('invalid');
    expect(classifyAddress('1.2.3')).toBe('invalid');
    expect(classifyAddress('1::2::3')).toBe('invalid');
    expect(isPrivateAddress('not an address')).toBe(true);
  });
});

describe('resolvePublic', () => {
  const resolver = (map: Record<string, string[]>) => async (host: string) => {
    if (!map[host]) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return map[host].map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

  it('accepts hosts resolving only to public addresses', async () => {
    await expect(
      assertPublicTarget(
        new URL('https://shop.example/x'),
        resolver({ 'shop.example': ['93.184.216.34', '2606:2800:220:1::1'] }),
      ),
    ).resolves.toBeUndefined();
  });

  it('refuses a host when any of its addresses is private, with a plain message', async () => {
    const check = assertPublicTarget(
      new URL('http://internal.example/admin'),
      resolver({ 'internal.example': ['93.184.216.34', '10.0.0.5'] }),
    );
    await expect(check).rejects.toBeInstanceOf(TargetRefusedError);
    await expect(check).rejects.toThrow(
      'refused to fetch http://internal.example/admin: target resolves to a private address (10.0.0.5); set ENGINE_ALLOW_PRIVATE_TARGETS=true to allow',
    );
  });

  it('checks IP literals without DNS, including obfuscated and bracketed forms', async () => {
    const noDns = async () => {
      throw new Error('DNS must not be used');
    };
    await expect(assertPublicTarget(new URL('http://169.254.169.254/latest/meta-data'), noDns)).rejects.toThrow(
      '(169.254.169.254)',
    );
    await expect(assertPublicTarget(new URL('http://2130706433/'), noDns)).rejects.toThrow('(127.0.0.1)');
    await expect(assertPublicTarget(new URL('http://0x7f.1/'), noDns)).rejects.toThrow('(127.0.0.1)');
    await expect(assertPublicTarget(new URL('http://[::ffff:127.0.0.1]/'), noDns)).rejects.toThrow('private address');
    await expect(assertPublicTarget(new URL('http://8.8.8.8/'), noDns)).resolves.toBeUndefined();
  });
});

describe('HttpClient and the guard', () => {
  let site: FixtureSite;
  beforeAll(async () => {
    site = await startFixtureSite();
  });
  afterAll(async () => {
    await site.close();
  });

  it('checks every redirect hop', async () => {
    const checked: string[] = [];
    const client = new HttpClient({
      maxConcurrency: 1,
      allowPrivateTargets: false,
      signal: new AbortController().signal,
      checkTarget: async (url) => {
        checked.push(url.href);
        if (url.pathname === '/catalog') throw new TargetRefusedError(url.href, '10.0.0.1');
      },
    });
    try {
      const result = await client.get(`${site.url}/redirect`);
      expect(checked).toEqual([`${site.url}/redirect`, `${site.url}/catalog?page=1`]);
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.failure.kind).toBe('target-refused');
        expect(result.failure.message).toBe(
          `refused to fetch ${site.url}/catalog?page=1: target resolves to a private address (10.0.0.1); set ENGINE_ALLOW_PRIVATE_TARGETS=true to allow`,
        );
        expect(result.failure.attempts).toBe(1);
      }
    } finally {
      await client.close();
    }
  });

  it('refuses a private target on every request, not only the first', async () => {
    const client = new HttpClient({
      maxConcurrency: 1,
      allowPrivateTargets: false,
      signal: new AbortController().signal,
    });
    try {
      for (const v of ['a', 'b']) {
        const result = await client.get(`${site.url}/catalog?page=1&v=${v}`);
        expect(result).toMatchObject({ ok: false, failure: { kind: 'target-refused' } });
      }
      expect(site.hits.get('/catalog?page=1&v=a')).toBeUndefined();
      expect(site.hits.get('/catalog?page=1&v=b')).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it('re-checks addresses at connect time (DNS rebinding)', async () => {
    // The pre-flight check is bypassed here, so only the connect-time lookup can refuse.
    const client = new HttpClient({
      maxConcurrency: 1,
      allowPrivateTargets: false,
      signal: new AbortController().signal,
      checkTarget: async () => {},
    });
    try {
      const url = site.url.replace('127.0.0.1', 'localhost') + '/catalog?page=1&v=rebind';
      const result = await client.get(url);
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.failure.kind).toBe('target-refused');
        expect(result.failure.message).toMatch(
          /^refused to fetch http:\/\/localhost:\d+\/catalog\?page=1&v=rebind: target resolves to a private address \((127\.0\.0\.1|::1)\)/,
        );
      }
      expect(site.hits.get('/catalog?page=1&v=rebind')).toBeUndefined();
    } finally {
      await client.close();
    }
  });
});

describe('resolvePublic on a host name given alone (a CONNECT authority, a socket lookup)', () => {
  const noDns = async () => {
    throw new Error('DNS must not be used');
  };
  it.each([
    ['0xa9fea9fe', '169.254.169.254', 'link-local'],
    ['2852039166', '169.254.169.254', 'link-local'],
    ['0251.0376.0251.0376', '169.254.169.254', 'link-local'],
    ['[::ffff:169.254.169.254]', '::ffff:169.254.169.254', 'link-local'],
    ['100.64.0.1', '100.64.0.1', 'shared'],
    ['fd00::1', 'fd00::1', 'unique-local'],
  ])('canonicalizes %s and refuses it as %s (%s)', async (hostname, address, kind) => {
    const refusal = await resolvePublic(
      { hostname, port: 80 },
      { allowPrivateTargets: false, resolveHost: noDns },
    ).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(TargetRefusedError);
    expect(refusal).toMatchObject({ address, kind, role: 'target', url: `host ${address}` });
  });

  it('resolves without refusing when the operator lifted the rule', async () => {
    const resolveHost = async () => [{ address: '10.0.0.1', family: 4 }];
    await expect(
      resolvePublic({ hostname: 'intranet.example' }, { allowPrivateTargets: true, resolveHost }),
    ).resolves.toEqual([{ address: '10.0.0.1', family: 4 }]);
  });
});
