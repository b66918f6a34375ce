// The signed-in user: the access token from POST /oauth/token, kept in memory and in sessionStorage
// (so a reload keeps the tab signed in; never localStorage, which outlives the tab and is shared by
// every tab). An expired token is not refreshed: the next 401 signs the tab out and asks again.
import { useEffect, useState } from 'preact/hooks';

export interface Session {
  token: string;
  userId: number;
  email: string;
  role: 'admin' | 'member';
  expiresAt: number;
}

const KEY = 'cxs.session';
let current: Session | null = read();
/** Why the last session ended, shown on the sign-in form. */
let endedBecause: string | null = null;
const listeners = new Set<() => void>();

function read(): Session | null {
  try {
    const s = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Session | null;
    return s && s.expiresAt > Date.now() ? s : null;
  } catch {
    return null;
  }
}

function notify() {
  for (const l of listeners) l();
}

/** The claims the console shows (it does not verify the token: the API does, on every request). */
function claims(token: string): { sub: string; email: string; role: 'admin' | 'member'; exp: number } {
  const part = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
  return JSON.parse(atob(part)) as { sub: string; email: string; role: 'admin' | 'member'; exp: number };
}

export function startSession(token: string): void {
  const c = claims(token);
  current = { token, userId: Number(c.sub), email: c.email, role: c.role, expiresAt: c.exp * 1000 };
  endedBecause = null;
  sessionStorage.setItem(KEY, JSON.stringify(current));
  notify();
}

export function endSession(reason: string | null = null): void {
  current = null;
  endedBecause = reason;
  sessionStorage.removeItem(KEY);
  notify();
}

export function getSession(): Session | null {
  if (current && current.expiresAt <= Date.now()) endSession('Your session expired. Sign in again.');
  return current;
}

export function sessionEndReason(): string | null {
  return endedBecause;
}

export function useSession(): Session | null {
  const [, force] = useState(0);
  useEffect(() => {
    const l = () => force((n) => n + 1);
    listeners.add(l);
    return () => void listeners.delete(l);
  }, []);
  return getSession();
}
