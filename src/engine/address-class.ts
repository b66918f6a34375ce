// What kind of address an IP literal is, for the SSRF rule (ssrf.ts): everything but a public unicast
// address is refused, IPv4 forms hidden in IPv6 (mapped, translated, NAT64, 6to4, Teredo) included.
import { isIP } from 'node:net';

/** Why an address is (not) a fetchable target. Everything but 'public' is refused by the guard. */
export type AddressKind =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'shared'
  | 'unique-local'
  | 'multicast'
  | 'reserved'
  | 'invalid';

interface Ipv4Range {
  base: number;
  bits: number;
  kind: AddressKind;
}

const IPV4_RANGES: Ipv4Range[] = [
  { base: ipv4ToInt('0.0.0.0'), bits: 8, kind: 'unspecified' },
  { base: ipv4ToInt('10.0.0.0'), bits: 8, kind: 'private' },
  { base: ipv4ToInt('100.64.0.0'), bits: 10, kind: 'shared' },
  { base: ipv4ToInt('127.0.0.0'), bits: 8, kind: 'loopback' },
  { base: ipv4ToInt('169.254.0.0'), bits: 16, kind: 'link-local' },
  { base: ipv4ToInt('172.16.0.0'), bits: 12, kind: 'private' },
  { base: ipv4ToInt('192.0.0.0'), bits: 24, kind: 'reserved' },
  { base: ipv4ToInt('192.168.0.0'), bits: 16, kind: 'private' },
  { base: ipv4ToInt('198.18.0.0'), bits: 15, kind: 'reserved' },
  { base: ipv4ToInt('224.0.0.0'), bits: 4, kind: 'multicast' },
  { base: ipv4ToInt('240.0.0.0'), bits: 4, kind: 'reserved' },
];

function ipv4ToInt(address: string): number {
  const parts = address.split('.').map(Number);
  return ((parts[0] << 24) | (parts[1] << 16) | (parts[2] << 8) | parts[3]) >>> 0;
}

function classifyIpv4(value: number): AddressKind {
  for (const range of IPV4_RANGES) {
    const mask = range.bits === 0 ? 0 : (~0 << (32 - range.bits)) >>> 0;
    if ((value & mask) >>> 0 === range.base) return range.kind;
  }
  return 'public';
}

/** Parses an IPv6 text form (with optional trailing dotted quad and zone id) into 8 groups. */
function parseIpv6(address: string): number[] | null {
  let text = address.split('%')[0];
  const groups: number[] = [];
  const dotted = text.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    if (isIP(dotted[1]) !== 4) return null;
    const v4 = ipv4ToInt(dotted[1]);
    text = text.slice(0, -dotted[1].length) + `${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parseHalf = (half: string): number[] => (half === '' ? [] : half.split(':').map((g) => parseInt(g, 16)));
  const head = parseHalf(halves[0]);
  const tail = halves.length === 2 ? parseHalf(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? head.length !== 8 : missing < 1) return null;
  groups.push(...head, ...Array.from({ length: halves.length === 2 ? missing : 0 }, () => 0), ...tail);
  if (groups.some((g) => Number.isNaN(g) || g < 0 || g > 0xffff)) return null;
  return groups;
}

function classifyIpv6(groups: number[]): AddressKind {
  const embeddedV4 = (hi: number, lo: number) => classifyIpv4(((hi << 16) | lo) >>> 0);
  const firstSixZero = groups.slice(0, 6).every((g) => g === 0);
  if (groups.every((g) => g === 0)) return 'unspecified';
  if (groups.slice(0, 7).every((g) => g === 0) && groups[7] === 1) return 'loopback';
  // IPv4-mapped (::ffff:a.b.c.d) and the deprecated IPv4-compatible form reach IPv4 hosts.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) return embeddedV4(groups[6], groups[7]);
  if (firstSixZero) return embeddedV4(groups[6], groups[7]);
  // IPv4-translated (SIIT, ::ffff:0:a.b.c.d) reaches an IPv4 host too.
  if (groups.slice(0, 4).every((g) => g === 0) && groups[4] === 0xffff && groups[5] === 0)
    return embeddedV4(groups[6], groups[7]);
  // Well-known NAT64 (64:ff9b::/96, RFC 6052) and 6to4 (2002::/16, RFC 3056) carry an IPv4 destination.
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0)) {
    return embeddedV4(groups[6], groups[7]);
  }
  // Local-use NAT64 (64:ff9b:1::/48, RFC 8215) translates to whatever the local network chose: never public.
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups[2] === 0x0001) return 'reserved';
  if (groups[0] === 0x2002) return embeddedV4(groups[1], groups[2]);
  // Teredo (2001:0::/32, RFC 4380): the server's IPv4 follows the prefix, the client's is stored
  // inverted in the last 32 bits; a private address in either can be reached through it.
  if (groups[0] === 0x2001 && groups[1] === 0) {
    const client = embeddedV4(groups[6] ^ 0xffff, groups[7] ^ 0xffff);
    if (client !== 'public') return client;
    return embeddedV4(groups[2], groups[3]);
  }
  if ((groups[0] & 0xfe00) === 0xfc00) return 'unique-local';
  if ((groups[0] & 0xffc0) === 0xfe80) return 'link-local';
  if ((groups[0] & 0xffc0) === 0xfec0) return 'private';
  if ((groups[0] & 0xff00) === 0xff00) return 'multicast';
  return 'public';
}

/** Classifies a literal IP address (IPv4, IPv6, IPv4-mapped IPv6; brackets and zone ids tolerated). */
export function classifyAddress(address: string): AddressKind {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(bare.split('%')[0]);
  if (family === 4) return classifyIpv4(ipv4ToInt(bare));
  if (family === 6) {
    const groups = parseIpv6(bare);
    return groups ? classifyIpv6(groups) : 'invalid';
  }
  return 'invalid';
}

/** True when the guard must refuse this address. Unparsable input counts as not public. */
export function isPrivateAddress(address: string): boolean {
  return classifyAddress(address) !== 'public';
}

/** How a refusal names an address's class to a user. */
export const ADDRESS_CLASS_NAMES: Record<Exclude<AddressKind, 'public'>, string> = {
  unspecified: 'unspecified',
  loopback: 'loopback',
  private: 'private',
  'link-local': 'link-local',
  shared: 'CGNAT (shared address space)',
  'unique-local': 'unique-local',
  multicast: 'multicast',
  reserved: 'reserved',
  invalid: 'unparsable',
};
