import {
  formatIpv4,
  ipv4InCidr,
  ipv6InCidr,
  lowIpv4,
  parseIpv4,
  parseIpv6,
  type Ipv4,
  type Ipv6,
} from './ip-address.js';

/** Why an address is not on the public internet. */
export type AddressKind =
  | 'public'
  | 'metadata'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'shared'
  | 'multicast'
  | 'unspecified'
  | 'unique-local'
  | 'documentation'
  | 'reserved'
  | 'invalid';

/** What the classifier says about one resolved address. */
export interface AddressVerdict {
  address: string;
  kind: AddressKind;
  /** How the address was read, when it embeds an IPv4 (`IPv4-mapped 127.0.0.1`). */
  via?: string;
}

type Range4 = readonly [network: string, bits: number, kind: AddressKind];

/** Cloud instance metadata endpoints: never reachable, even from an allowlisted host. */
const METADATA_V4 = ['169.254.169.254', '169.254.170.2', '169.254.169.253', '100.100.100.200'];
const METADATA_V6 = ['fd00:ec2::254', 'fd00:ec2::253'];

/** IANA's special-purpose IPv4 ranges that are not globally reachable (RFC 6890 and later). */
const SPECIAL_V4: readonly Range4[] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

/** IPv6 ranges refused outright (embedded-IPv4 forms are handled before these). */
const SPECIAL_V6: readonly Range4[] = [
  ['64:ff9b:1::', 48, 'private'],
  ['100::', 64, 'reserved'],
  ['2001::', 23, 'reserved'],
  ['2001:db8::', 32, 'documentation'],
  ['3fff::', 20, 'documentation'],
  ['fc00::', 7, 'unique-local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'private'],
  ['ff00::', 8, 'multicast'],
];

const v4 = (text: string): Ipv4 => parseIpv4(text) ?? 0;
const v6 = (text: string): Ipv6 => parseIpv6(text) ?? [];
const METADATA_V4_PARSED = METADATA_V4.map(v4);
const METADATA_V6_PARSED = METADATA_V6.map(v6);
const SPECIAL_V4_PARSED = SPECIAL_V4.map(([net, bits, kind]) => [v4(net), bits, kind] as const);
const SPECIAL_V6_PARSED = SPECIAL_V6.map(([net, bits, kind]) => [v6(net), bits, kind] as const);
const GLOBAL_UNICAST_V6 = v6('2000::');

function classifyIpv4(address: Ipv4): AddressKind {
  if (METADATA_V4_PARSED.includes(address)) return 'metadata';
  for (const [network, bits, kind] of SPECIAL_V4_PARSED) {
    if (ipv4InCidr(address, network, bits)) return kind;
  }
  return 'public';
}

/** IPv6 forms that carry an IPv4 address, and where it sits. */
function embeddedIpv4(groups: Ipv6): { form: string; address: Ipv4 } | null {
  const zeros = (count: number): boolean => groups.slice(0, count).every((group) => group === 0);
  if (zeros(5) && groups[5] === 0xffff) return { form: 'IPv4-mapped', address: lowIpv4(groups) };
  if (zeros(4) && groups[4] === 0xffff && groups[5] === 0) {
    return { form: 'IPv4-translated', address: lowIpv4(groups) };
  }
  if (ipv6InCidr(groups, v6('64:ff9b::'), 96)) return { form: 'NAT64', address: lowIpv4(groups) };
  if (groups[0] === 0x2002) return { form: '6to4', address: lowIpv4(groups, 1) };
  return null;
}

function classifyIpv6(groups: Ipv6): Omit<AddressVerdict, 'address'> {
  if (groups.every((group) => group === 0)) return { kind: 'unspecified' };
  if (groups.slice(0, 7).every((group) => group === 0) && groups[7] === 1) {
    return { kind: 'loopback' };
  }
  const embedded = embeddedIpv4(groups);
  if (embedded) {
    return {
      kind: classifyIpv4(embedded.address),
      via: `${embedded.form} ${formatIpv4(embedded.address)}`,
    };
  }
  // The deprecated IPv4-compatible form (::a.b.c.d) and every other use of ::/96.
  if (groups.slice(0, 6).every((group) => group === 0)) return { kind: 'reserved' };
  if (METADATA_V6_PARSED.some((meta) => ipv6InCidr(groups, meta, 128))) return { kind: 'metadata' };
  for (const [network, bits, kind] of SPECIAL_V6_PARSED) {
    if (ipv6InCidr(groups, network, bits)) return { kind };
  }
  return ipv6InCidr(groups, GLOBAL_UNICAST_V6, 3) ? { kind: 'public' } : { kind: 'reserved' };
}

/**
 * Classifies one IP address (as a resolver returns it, or a URL host with its brackets): public,
 * or why not. IPv6 forms that embed an IPv4 address (mapped, translated, NAT64, 6to4) are judged
 * by that IPv4 address; text that is no address is `invalid`.
 */
export function classifyAddress(address: string): AddressVerdict {
  const ipv4 = parseIpv4(address);
  if (ipv4 !== null) return { address, kind: classifyIpv4(ipv4) };
  const ipv6 = parseIpv6(address);
  if (ipv6 !== null) return { address, ...classifyIpv6(ipv6) };
  return { address, kind: 'invalid' };
}

/** A readable reason for a refused address, for the model and the logs. */
export function describeVerdict(verdict: AddressVerdict): string {
  const names: Record<AddressKind, string> = {
    public: 'a public address',
    metadata: 'a cloud metadata address',
    loopback: 'a loopback address',
    private: 'a private address',
    'link-local': 'a link-local address',
    shared: 'a carrier-grade NAT address',
    multicast: 'a multicast address',
    unspecified: 'the unspecified address',
    'unique-local': 'a unique local address',
    documentation: 'a documentation address',
    reserved: 'a reserved address',
    invalid: 'not an IP address',
  };
  const via = verdict.via ? ` (${verdict.via})` : '';
  return `${verdict.address}${via} is ${names[verdict.kind]}`;
}
