// The built-in OAuth 2.0 issuer: password and refresh_token grants, 15-minute ES256 access tokens,
// rotating refresh tokens (a reused one revokes its whole family), signing keys kept in the
// database (private half sealed) so every API instance signs and verifies with the same keys.
// Optionally trusts an external issuer whose tokens map to users by `sub` or email.
import crypto from 'node:crypto';
import argon2 from 'argon2';
import * as jose from 'jose';
import type { Clock } from '../../lib/clock.js';
import { ARGON2_OPTIONS, randomSecret, seal, sha256Hex, unseal } from '../../lib/crypto.js';
import { UnauthenticatedError } from '../../lib/errors.js';
import { createStampedCache, type CredentialsEpoch, type EpochStamp } from './credentials.js';
import type { IdentityRepository } from './identity.repository.js';
import type { Principal } from './principal.js';

const ALG = 'ES256';

/** RFC 6749 section 5.2 error. */
export class OAuthError extends Error {
  constructor(
    readonly error: 'invalid_request' | 'invalid_grant' | 'unsupported_grant_type' | 'invalid_client' | 'invalid_scope',
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope?: string;
}

interface LoadedKey {
  kid: string;
  privateKey: Awaited<ReturnType<typeof jose.importJWK>>;
  /** Imported once: importing a key per request cost more than verifying the signature. */
  publicKey: Awaited<ReturnType<typeof jose.importJWK>>;
  publicJwk: jose.JWK;
}

/** What a verified access token says about its bearer. */
interface AccessClaims {
  /** Our own tokens: the user id. */
  userId?: number;
  /** An external issuer's tokens: the user is found by subject, else e-mail. */
  external?: { sub?: string; email?: string };
  /** When the token expires (ms since the epoch). */
  expiresAt: number;
}

const MAX_CACHED_TOKENS = 10_000;
const MAX_CACHED_USERS = 10_000;

// A fixed hash to verify against when the user does not exist, so timing does not reveal emails.
let dummyHash: Promise<string> | null = null;

export function createTokensService(deps: {
  repo: IdentityRepository;
  epoch: CredentialsEpoch;
  clock: Clock;
  config: {
    apiKeyCacheSeconds: number;
    encryptionKey: Buffer;
    jwt: { issuer: string; audience: string; accessTokenSeconds: number; refreshTokenDays: number };
    externalOAuth: { issuer: string; audience: string; jwksUrl: string } | null;
  };
}) {
  const { repo, epoch, clock, config } = deps;
  // A verified token is not verified again until it expires (the signature cannot change); its
  // user is cached under the credentials epoch like an API key's.
  const verifiedTokens = new Map<string, AccessClaims>();
  const users = createStampedCache<Principal>({ ttlMs: config.apiKeyCacheSeconds * 1000, max: MAX_CACHED_USERS });
  let keys: LoadedKey[] | null = null;
  let loading: Promise<LoadedKey[]> | null = null;
  const external = config.externalOAuth
    ? { ...config.externalOAuth, jwks: jose.createRemoteJWKSet(new URL(config.externalOAuth.jwksUrl)) }
    : null;

  async function loadKeys(): Promise<LoadedKey[]> {
    let rows = await repo.listSigningKeys();
    if (rows.length === 0) {
      const { privateKey, publicKey } = await jose.generateKeyPair(ALG, { extractable: true });
      const kid = crypto.randomUUID();
      const publicJwk = { ...(await jose.exportJWK(publicKey)), kid, alg: ALG, use: 'sig' };
      const privateJwk = await jose.exportJWK(privateKey);
      try {
        await repo.createSigningKey({
          kid,
          algorithm: ALG,
          publicJwk,
          privateJwk: seal(config.encryptionKey, JSON.stringify(privateJwk)),
        });
      } catch {
        // Another instance created one at the same moment; both stay valid and published.
      }
      rows = await repo.listSigningKeys();
    }
    return Promise.all(
      rows.map(async (r) => ({
        kid: r.kid,
        privateKey: await jose.importJWK(JSON.parse(unseal(config.encryptionKey, r.privateJwk)), r.algorithm),
        publicKey: await jose.importJWK(r.publicJwk as jose.JWK, r.algorithm),
        publicJwk: r.publicJwk as jose.JWK,
      })),
    );
  }

  async function signingKeys(): Promise<LoadedKey[]> {
    if (keys) return keys;
    loading ??= loadKeys()
      .then((k) => (keys = k))
      .finally(() => (loading = null));
    return loading;
  }

  async function issue(
    user: { id: number; organizationId: number; role: string; email: string },
    familyId?: string,
  ): Promise<TokenResponse> {
    const [key] = await signingKeys();
    const now = clock.now();
    const accessToken = await new jose.SignJWT({ org: user.organizationId, role: user.role, email: user.email })
      .setProtectedHeader({ alg: ALG, kid: key.kid, typ: 'at+jwt' })
      .setSubject(String(user.id))
      .setIssuer(config.jwt.issuer)
      .setAudience(config.jwt.audience)
      .setIssuedAt(Math.floor(now.getTime() / 1000))
      .setExpirationTime(Math.floor(now.getTime() / 1000) + config.jwt.accessTokenSeconds)
      .setJti(crypto.randomUUID())
      .sign(key.privateKey);
    const refreshToken = randomSecret('cxr_');
    await repo.createRefreshToken({
      userId: user.id,
      tokenDigest: sha256Hex(refreshToken),
      familyId: familyId ?? crypto.randomUUID(),
      expiresAt: new Date(now.getTime() + config.jwt.refreshTokenDays * 86_400_000),
    });
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: config.jwt.accessTokenSeconds,
      refresh_token: refreshToken,
    };
  }

  return {
    async jwks(): Promise<{ keys: jose.JWK[] }> {
      return { keys: (await signingKeys()).map((k) => k.publicJwk) };
    },

    async passwordGrant(username: string | undefined, password: string | undefined): Promise<TokenResponse> {
      if (!username || !password)
        throw new OAuthError('invalid_request', 'username and password are required for grant_type=password.');
      const user = await repo.findUserByEmail(username);
      dummyHash ??= argon2.hash('not-a-password', ARGON2_OPTIONS);
      const ok = user?.passwordHash
        ? await argon2.verify(user.passwordHash, password)
        : await argon2.verify(await dummyHash, password).then(() => false);
      if (!user || !ok || !user.isActive)
        throw new OAuthError('invalid_grant', 'The username or password is incorrect.');
      return issue(user);
    },

    async refreshGrant(refreshToken: string | undefined): Promise<TokenResponse> {
      if (!refreshToken)
        throw new OAuthError('invalid_request', 'refresh_token is required for grant_type=refresh_token.');
      const digest = sha256Hex(refreshToken);
      const now = clock.now();
      const row = await repo.consumeRefreshToken(digest, now);
      if (!row) {
        // A token that was already rotated is being replayed: assume theft and end the family.
        const known = await repo.findRefreshToken(digest);
        if (known?.replacedAt) await repo.revokeRefreshFamily(known.familyId, now);
        throw new OAuthError('invalid_grant', 'The refresh token is invalid, expired, revoked or already used.');
      }
      if (!row.user.isActive) throw new OAuthError('invalid_grant', 'The user is not active.');
      return issue(row.user, row.familyId);
    },

    /** The claims of a token this instance already verified, while it has not expired (no I/O). */
    verified(token: string): AccessClaims | undefined {
      const known = verifiedTokens.get(token);
      return known && known.expiresAt > clock.now().getTime() ? known : undefined;
    },

    /** Verifies an access token's signature, issuer, audience and lifetime; 401 otherwise. */
    async verify(token: string): Promise<AccessClaims> {
      const nowMs = clock.now().getTime();
      const known = verifiedTokens.get(token);
      if (known && known.expiresAt > nowMs) return known;
      let payload: jose.JWTPayload;
      let isExternal = false;
      try {
        const header = jose.decodeProtectedHeader(token);
        const localKeys = await signingKeys();
        let key = localKeys.find((k) => k.kid === header.kid);
        if (!key && header.kid && !external) {
          keys = null; // a key created by another instance since we loaded
          key = (await signingKeys()).find((k) => k.kid === header.kid);
        }
        if (key) {
          ({ payload } = await jose.jwtVerify(token, key.publicKey, {
            issuer: config.jwt.issuer,
            audience: config.jwt.audience,
            algorithms: [ALG],
            currentDate: clock.now(),
          }));
        } else if (external) {
          ({ payload } = await jose.jwtVerify(token, external.jwks, {
            issuer: external.issuer,
            audience: external.audience,
            currentDate: clock.now(),
          }));
          isExternal = true;
        } else {
          throw new Error('unknown key');
        }
      } catch {
        throw new UnauthenticatedError('The bearer token is invalid or expired.');
      }
      const expiresAt = typeof payload.exp === 'number' ? payload.exp * 1000 : nowMs;
      const claims: AccessClaims = isExternal
        ? {
            external: { sub: payload.sub, email: typeof payload.email === 'string' ? payload.email : undefined },
            expiresAt,
          }
        : { userId: Number(payload.sub), expiresAt };
      if (!isExternal && !Number.isInteger(claims.userId))
        throw new UnauthenticatedError('The bearer token is invalid or expired.');
      if (expiresAt > nowMs) {
        if (verifiedTokens.size >= MAX_CACHED_TOKENS)
          verifiedTokens.delete(verifiedTokens.keys().next().value as string);
        verifiedTokens.set(token, claims);
      }
      return claims;
    },

    /** The user of a token's claims from this instance's cache, if cached under `stamp` (no I/O). */
    cachedPrincipal(claims: AccessClaims, stamp: EpochStamp | null): Principal | undefined {
      return claims.userId !== undefined ? users.get(String(claims.userId), stamp) : undefined;
    },

    /**
     * The active user a verified token stands for, from the database (cached under `stamp`, read
     * before this call); 401 when there is none.
     */
    async principalFor(claims: AccessClaims, stamp: EpochStamp | null = epoch.current()): Promise<Principal> {
      const cacheKey = claims.userId !== undefined ? String(claims.userId) : null;
      let user;
      if (claims.external) {
        user = claims.external.sub ? await repo.findUserByExternalSubject(claims.external.sub) : null;
        if (!user && claims.external.email) user = await repo.findUserByEmail(claims.external.email);
      } else {
        user = await repo.findUserById(claims.userId!);
      }
      if (!user || !user.isActive) throw new UnauthenticatedError('The bearer token is invalid or expired.');
      const principal: Principal = {
        userId: user.id,
        organizationId: user.organizationId,
        role: user.role === 'admin' ? 'admin' : 'member',
        email: user.email,
        name: user.name,
        via: 'bearer',
      };
      if (cacheKey) users.set(cacheKey, principal, stamp);
      return principal;
    },
  };
}
export type TokensService = ReturnType<typeof createTokensService>;
