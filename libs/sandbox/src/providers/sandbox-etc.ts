import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, readlink, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HostPathMount } from './bwrap-arguments.js';

/**
 * What of the host's /etc a sandbox sees (read-only), when present: what toolchains read and
 * nothing that can carry a credential or host configuration. A trailing `*` matches by prefix.
 * Left out on purpose: `gitconfig` (credential helpers, URL rewrites), `shadow`/`gshadow`,
 * `ssh/`, `sudoers*`, `environment`, `npmrc`, `pip.conf`, `maven/` (`settings.xml` holds
 * repository passwords), `wgetrc`, `machine-id`, `subuid`/`subgid`, and everything else not
 * listed. `passwd`, `group`, `hosts`, `hostname` and `resolv.conf` are generated instead.
 */
export const DEFAULT_ETC_ENTRIES: readonly string[] = [
  // Shared libraries, and the symlink farm /usr/bin/java, editor, ... point into.
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'alternatives',
  // TLS trust (curl, git, pip, npm, Python, Java): certificates only, never /etc/ssl/private.
  'ssl/certs',
  'ssl/openssl.cnf',
  'ca-certificates',
  'ca-certificates.conf',
  'pki',
  'crypto-policies',
  // Name service, time and locale lookups of libc.
  'nsswitch.conf',
  'host.conf',
  'gai.conf',
  'protocols',
  'services',
  'localtime',
  'timezone',
  // What tools read to recognise the system or a file.
  'os-release',
  'lsb-release',
  'debian_version',
  'redhat-release',
  'system-release',
  'alpine-release',
  'mtab',
  'mime.types',
  'magic',
  'magic.mime',
  'shells',
  // Runtime configuration packaged under /etc (the JDK's conf/ points here; Python, Perl).
  'java-*',
  'python3*',
  'perl',
  'fonts',
  'terminfo',
  'xml',
  'sgml',
  'vim',
];

/** Who the sandbox user is, for the generated `passwd` and `group`. */
export interface SandboxIdentity {
  readonly user: string;
  readonly uid: number;
  readonly gid: number;
  readonly home: string;
  readonly hostname: string;
}

/** Files made for the sandbox instead of the host's. */
export function generatedEtcFiles(identity: SandboxIdentity): Record<string, string> {
  const { user, uid, gid, home, hostname } = identity;
  return {
    passwd: [
      'root:x:0:0:root:/root:/usr/sbin/nologin',
      `${user}:x:${uid}:${gid}:Caravel sandbox:${home}:/bin/bash`,
      'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin',
      '',
    ].join('\n'),
    group: ['root:x:0:', `${user}:x:${gid}:`, 'nogroup:x:65534:', ''].join('\n'),
    hosts: `127.0.0.1\tlocalhost ${hostname}\n::1\tlocalhost ip6-localhost ip6-loopback\n`,
    hostname: `${hostname}\n`,
    'resolv.conf':
      '# No DNS inside a Caravel sandbox: the network, when there is one, is the egress proxy\n' +
      '# ($http_proxy), which resolves names itself.\n',
  };
}

/** Writes the generated files into `dir` (each atomically, so a concurrent reader sees all of one). */
export async function writeGeneratedEtc(dir: string, identity: SandboxIdentity): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o755 });
  for (const [name, content] of Object.entries(generatedEtcFiles(identity))) {
    const scratch = join(dir, `.${name}.${randomBytes(4).toString('hex')}`);
    await writeFile(scratch, content, { mode: 0o644 });
    await rename(scratch, join(dir, name));
  }
}

/** The host entries `entries` names under `etcDir` that exist (prefix patterns expanded). */
async function expand(etcDir: string, entries: readonly string[]): Promise<string[]> {
  const names: string[] = [];
  let listing: string[] | undefined;
  for (const entry of entries) {
    if (!entry.endsWith('*')) {
      names.push(entry);
      continue;
    }
    listing ??= await readdir(etcDir).catch(() => []);
    const prefix = entry.slice(0, -1);
    names.push(...listing.filter((name) => name.startsWith(prefix)).sort());
  }
  return [...new Set(names)];
}

/**
 * The mounts that make a sandbox's /etc: each listed host entry that exists (a symlink recreated
 * as one, a file or directory bound read-only) and the generated files bound from `generatedDir`.
 */
export async function etcMounts(
  entries: readonly string[],
  generatedDir: string,
  etcDir = '/etc',
): Promise<HostPathMount[]> {
  const mounts: HostPathMount[] = [];
  for (const name of await expand(etcDir, entries)) {
    if (name.split('/').includes('..')) continue;
    const host = join(etcDir, name);
    const inner = join('/etc', name);
    const info = await lstat(host).catch(() => undefined);
    if (info?.isSymbolicLink()) {
      mounts.push({ kind: 'symlink', path: inner, target: await readlink(host) });
    } else if (info?.isDirectory() || info?.isFile()) {
      mounts.push({ kind: 'ro-bind', path: inner, source: host });
    }
  }
  for (const name of Object.keys(
    generatedEtcFiles({ user: '', uid: 0, gid: 0, home: '', hostname: '' }),
  )) {
    mounts.push({ kind: 'ro-bind', path: join('/etc', name), source: join(generatedDir, name) });
  }
  return mounts;
}
