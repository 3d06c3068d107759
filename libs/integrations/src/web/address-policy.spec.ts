import { classifyAddress, describeVerdict, type AddressKind } from './address-policy.js';
import { HostAllowlist } from './host-allowlist.js';
import { parseIpv4, parseIpv6 } from './ip-address.js';

/** The host of a URL as the WHATWG parser normalises it, as the client sees it. */
const hostOf = (spelling: string): string => new URL(`http://${spelling}/`).hostname;

describe('classifyAddress', () => {
  it.each<[string, AddressKind, string?]>([
    // IPv4 as the URL parser normalises hex, octal, decimal and short forms.
    ['127.0.0.1', 'loopback'],
    ['0x7f.1', 'loopback'],
    ['2130706433', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['127.1', 'loopback'],
    ['0x7f000001', 'loopback'],
    ['017700000001', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'shared'],
    ['100.127.255.255', 'shared'],
    ['169.254.1.1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['0xa9.0xfe.0xa9.0xfe', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['203.0.113.9', 'documentation'],
    // Neighbours of the ranges stay public.
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['172.32.0.1', 'public'],
    ['100.128.0.1', 'public'],
    ['11.0.0.1', 'public'],
    ['169.255.0.1', 'public'],
    ['223.255.255.255', 'public'],
    // IPv6, including every form that carries an IPv4 address.
    ['[::]', 'unspecified'],
    ['[::1]', 'loopback'],
    ['[0:0:0:0:0:0:0:1]', 'loopback'],
    ['[::ffff:127.0.0.1]', 'loopback', 'IPv4-mapped 127.0.0.1'],
    ['[::ffff:7f00:1]', 'loopback', 'IPv4-mapped 127.0.0.1'],
    ['[::ffff:169.254.169.254]', 'metadata', 'IPv4-mapped 169.254.169.254'],
    ['[::ffff:10.1.2.3]', 'private', 'IPv4-mapped 10.1.2.3'],
    ['[::ffff:0:7f00:1]', 'loopback', 'IPv4-translated 127.0.0.1'],
    ['[64:ff9b::10.0.0.1]', 'private', 'NAT64 10.0.0.1'],
    ['[64:ff9b::7f00:1]', 'loopback', 'NAT64 127.0.0.1'],
    ['[64:ff9b::8.8.8.8]', 'public', 'NAT64 8.8.8.8'],
    ['[64:ff9b:1::1]', 'private'],
    ['[2002:7f00:1::]', 'loopback', '6to4 127.0.0.1'],
    ['[2002:a9fe:a9fe::1]', 'metadata', '6to4 169.254.169.254'],
    ['[::127.0.0.1]', 'reserved'],
    ['[::8.8.8.8]', 'reserved'],
    ['[fe80::1]', 'link-local'],
    ['[febf:ffff::1]', 'link-local'],
    ['[fec0::1]', 'private'],
    ['[fc00::1]', 'unique-local'],
    ['[fd12:3456::1]', 'unique-local'],
    ['[fd00:ec2::254]', 'metadata'],
    ['[ff02::1]', 'multicast'],
    ['[2001:db8::1]', 'documentation'],
    ['[2001::1]', 'reserved'],
    ['[100::1]', 'reserved'],
    ['[4000::1]', 'reserved'],
    ['[2606:4700:4700::1111]', 'public'],
    ['[2a00:1450:4001:80b::200e]', 'public'],
  ])('%s is %s', (...[spelling, kind, via]: [string, AddressKind, string?]) => {
    const verdict = classifyAddress(hostOf(spelling));
    expect(verdict.kind).toBe(kind);
    if (via) expect(verdict.via).toBe(via);
  });

  it('calls anything but an IP address invalid, so it can never pass as public', () => {
    for (const text of ['localhost', 'example.com', '1.2.3', '1.2.3.256', '::ffff:1.2.3', ':::1']) {
      expect(classifyAddress(text).kind).toBe('invalid');
    }
  });

  it('reads resolver answers, zones included', () => {
    expect(classifyAddress('fe80::1%eth0').kind).toBe('link-local');
    expect(classifyAddress('::ffff:192.168.0.1')).toMatchObject({ kind: 'private' });
  });

  it('says why an address is refused, naming the IPv4 inside an IPv6 form', () => {
    expect(describeVerdict(classifyAddress('::ffff:7f00:1'))).toBe(
      '::ffff:7f00:1 (IPv4-mapped 127.0.0.1) is a loopback address',
    );
    expect(describeVerdict(classifyAddress('169.254.169.254'))).toBe(
      '169.254.169.254 is a cloud metadata address',
    );
  });
});

describe('IP parsers', () => {
  it('accept only canonical decimal quads for IPv4', () => {
    expect(parseIpv4('192.168.0.1')).toBe(0xc0a80001);
    expect(parseIpv4('0x7f.0.0.1')).toBeNull();
    expect(parseIpv4('2130706433')).toBeNull();
    expect(parseIpv4('256.0.0.1')).toBeNull();
  });

  it('expand IPv6 compression and dotted tails into eight groups', () => {
    expect(parseIpv6('::ffff:1.2.3.4')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]);
    expect(parseIpv6('[2001:db8::1]')).toEqual([0x2001, 0xdb8, 0, 0, 0, 0, 0, 1]);
    expect(parseIpv6('1:2:3:4:5:6:7:8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(parseIpv6('1:2:3:4:5:6:7:8:9')).toBeNull();
    expect(parseIpv6('1::2::3')).toBeNull();
    expect(parseIpv6('1:2:3:4:5:6:7::8')).toBeNull();
    expect(parseIpv6('12345::')).toBeNull();
  });
});

describe('HostAllowlist', () => {
  it('matches exact hosts and *.domain entries, normalised like URLs', () => {
    const list = HostAllowlist.parse(' docs.internal , *.corp.example,0x7f.1,[0:0::1],::2 ');
    expect(list.allows('docs.internal')).toBe(true);
    expect(list.allows('DOCS.internal')).toBe(true);
    expect(list.allows('wiki.corp.example')).toBe(true);
    expect(list.allows('a.b.corp.example')).toBe(true);
    expect(list.allows('corp.example')).toBe(false);
    expect(list.allows('evilcorp.example')).toBe(false);
    expect(list.allows(hostOf('127.0.0.1'))).toBe(true);
    expect(list.allows(hostOf('2130706433'))).toBe(true);
    expect(list.allows(hostOf('[::1]'))).toBe(true);
    expect(list.allows(hostOf('[::2]'))).toBe(true);
    expect(list.allows('docs.internal.evil.example')).toBe(false);
  });

  it('is empty by default and refuses entries that are not hosts', () => {
    expect(HostAllowlist.parse(undefined).size).toBe(0);
    expect(HostAllowlist.parse('').size).toBe(0);
    expect(() => HostAllowlist.parse('http://x.example/path')).toThrow(/WEB_ALLOWED_HOSTS/);
    expect(() => HostAllowlist.parse('x.example:8080')).toThrow(/not a host name/);
  });
});
