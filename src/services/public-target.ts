// The SSRF rule applied when a user saves an outbound URL (a webhook target, a proxy of a pool), so a
// private address is refused at once rather than at the first delivery or Run. The same resolvePublic
// checks the URL again at every use: DNS may answer differently later.
import { ADDRESS_CLASS_NAMES } from '../engine/address-class.js';
import { resolvePublic, TargetRefusedError, type HopRole, type ResolveHost } from '../engine/ssrf.js';

/** How long saving waits for a host's DNS answer before leaving the check to the time of use. */
const RESOLVE_TIMEOUT_MS = 2000;

export interface SaveTimePolicy {
  allowPrivateTargets: boolean;
  resolveHost?: ResolveHost;
}

/**
 * The refusal of a URL whose host is (or resolves to) a non-public address; null when it is public, the
 * rule is lifted, or the name does not resolve here within the timeout (the use checks again).
 */
export async function refusalOf(url: URL, policy: SaveTimePolicy, role: HopRole): Promise<TargetRefusedError | null> {
  if (policy.allowPrivateTargets) return null;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), RESOLVE_TIMEOUT_MS)));
  try {
    return await Promise.race([resolvePublic(url, policy, role).then(() => null), timeout]);
  } catch (error) {
    if (error instanceof TargetRefusedError) return error;
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/** "a non-public address (169.254.169.254, link-local)": how a refusal names what the host resolved to. */
export function describeRefusedAddress(refusal: TargetRefusedError): string {
  return `a non-public address (${refusal.address}, ${ADDRESS_CLASS_NAMES[refusal.kind]})`;
}
