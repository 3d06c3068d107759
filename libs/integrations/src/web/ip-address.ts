/**
 * Strict parsers for the IP address spellings a resolver or the WHATWG URL parser produces: a
 * dotted quad for IPv4, the colon forms (with `::` and an optional dotted IPv4 tail) for IPv6.
 * Anything else (`0x7f.1`, `2130706433`) is not an address here: the URL parser has already
 * normalised those in a URL's host, and a resolver never returns them.
 */

/** An IPv4 address as an unsigned 32-bit number. */
export type Ipv4 = number;

/** An IPv6 address as its eight 16-bit groups. */
export type Ipv6 = readonly number[];

const QUAD = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const GROUP = /^[0-9a-f]{1,4}$/;

/** Parses `a.b.c.d` (each part 0-255, decimal); null for anything else. */
export function parseIpv4(text: string): Ipv4 | null {
  const parts = QUAD.exec(text);
  if (!parts) return null;
  let value = 0;
  for (const part of parts.slice(1)) {
    const octet = Number(part);
    if (octet > 255) return null;
    value = value * 256 + octet;
  }
  return value;
}

/** Parses an IPv6 address (brackets and a `%zone` allowed and dropped); null otherwise. */
export function parseIpv6(text: string): Ipv6 | null {
  let body = text.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  const zone = body.indexOf('%');
  if (zone >= 0) body = body.slice(0, zone);
  if (!body.includes(':')) return null;
  if (body.includes('.')) {
    const cut = body.lastIndexOf(':');
    const tail = parseIpv4(body.slice(cut + 1));
    if (tail === null) return null;
    body = `${body.slice(0, cut + 1)}${(tail >>> 16).toString(16)}:${(tail & 0xffff).toString(16)}`;
  }
  const halves = body.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (half: string | undefined): string[] | null => {
    if (half === undefined || half === '') return [];
    const groups = half.split(':');
    return groups.every((group) => GROUP.test(group)) ? groups : null;
  };
  const head = groupsOf(halves[0]);
  const tail = groupsOf(halves[1]);
  if (!head || !tail) return null;
  const compressed = halves.length === 2;
  const missing = 8 - head.length - tail.length;
  if (compressed ? missing < 1 : missing !== 0) return null;
  return [...head, ...Array<string>(missing).fill('0'), ...tail].map((group) =>
    Number.parseInt(group, 16),
  );
}

/** The IPv4 address in the last 32 bits of an IPv6 address. */
export function lowIpv4(groups: Ipv6, from = 6): Ipv4 {
  return ((groups[from] ?? 0) * 0x10000 + (groups[from + 1] ?? 0)) >>> 0;
}

/** `a.b.c.d` of a 32-bit IPv4 address. */
export function formatIpv4(address: Ipv4): string {
  return [24, 16, 8, 0].map((shift) => (address >>> shift) & 0xff).join('.');
}

/** True when the first `bits` bits of `address` equal those of `network`. */
export function ipv4InCidr(address: Ipv4, network: Ipv4, bits: number): boolean {
  if (bits === 0) return true;
  const mask = (0xffffffff << (32 - bits)) >>> 0;
  return (address & mask) >>> 0 === (network & mask) >>> 0;
}

/** True when the first `bits` bits of `address` equal those of `network`. */
export function ipv6InCidr(address: Ipv6, network: Ipv6, bits: number): boolean {
  for (let index = 0; index < 8 && bits > 0; index += 1) {
    const take = Math.min(16, bits);
    const mask = (0xffff << (16 - take)) & 0xffff;
    if (((address[index] ?? 0) & mask) !== ((network[index] ?? 0) & mask)) return false;
    bits -= take;
  }
  return true;
}
