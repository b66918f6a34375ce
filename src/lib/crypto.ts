// Digests, random tokens and authenticated encryption (AES-256-GCM) of values kept at rest.
import crypto from 'node:crypto';
import argon2 from 'argon2';

export function sha256Hex(value: string): string {
  return crypto.createHash('sha256').update(value).digest('hex');
}

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

export function base58(bytes: Uint8Array): string {
  let n = BigInt('0x' + (Buffer.from(bytes).toString('hex') || '0'));
  let out = '';
  while (n > 0n) {
    out = BASE58[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    out = '1' + out;
  }
  return out;
}

/** An opaque secret: prefix + base58 of 32 random bytes (256 bits). */
export function randomSecret(prefix: string): string {
  return prefix + base58(crypto.randomBytes(32));
}

const SEAL_VERSION = 'v1';

/** Seals `plain` as `v1.<iv>.<tag>.<ciphertext>` (base64url parts). */
export function seal(key: Buffer, plain: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [SEAL_VERSION, iv.toString('base64url'), tag.toString('base64url'), ct.toString('base64url')].join('.');
}

export function unseal(key: Buffer, sealed: string): string {
  const [version, iv, tag, ct] = sealed.split('.');
  if (version !== SEAL_VERSION || !iv || !tag || ct === undefined) throw new Error('not a sealed value');
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
}

export function isSealed(value: string): boolean {
  return /^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(value);
}

/**
 * argon2id cost of password hashes: OWASP's first recommended configuration (19 MiB, 2 passes, 1 lane).
 * One verification takes about 40-75 ms of one core on our 2-vCPU machine (the library default,
 * 64 MiB x 3 passes x 4 lanes, took about 550 ms and all cores), and /oauth/token attempts are
 * rate limited before it runs. Hashes keep their parameters, so older ones still verify.
 */
export const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
