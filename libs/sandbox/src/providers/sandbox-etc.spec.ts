import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DEFAULT_ETC_ENTRIES, etcMounts, writeGeneratedEtc } from './sandbox-etc.js';

describe("a sandbox's /etc", () => {
  let root: string;
  let etc: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'caravel-etc-'));
    etc = join(root, 'etc');
    await mkdir(join(etc, 'ssl', 'certs'), { recursive: true });
    await mkdir(join(etc, 'ssl', 'private'), { recursive: true });
    await mkdir(join(etc, 'java-17-openjdk'));
    await mkdir(join(etc, 'java-21-openjdk'));
    for (const name of ['gitconfig', 'shadow', 'ld.so.cache', 'npmrc', 'pip.conf']) {
      await writeFile(join(etc, name), 'host');
    }
    await symlink('/usr/share/zoneinfo/Etc/UTC', join(etc, 'localtime'));
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('binds only the listed host entries that exist, symlinks as symlinks, prefixes expanded', async () => {
    const mounts = await etcMounts(DEFAULT_ETC_ENTRIES, '/srv/gen', etc);
    const hostOnes = mounts.filter(
      (mount) => mount.kind === 'symlink' || !mount.source?.startsWith('/srv/gen'),
    );
    expect(hostOnes).toEqual([
      { kind: 'ro-bind', path: '/etc/ld.so.cache', source: join(etc, 'ld.so.cache') },
      { kind: 'ro-bind', path: '/etc/ssl/certs', source: join(etc, 'ssl/certs') },
      { kind: 'symlink', path: '/etc/localtime', target: '/usr/share/zoneinfo/Etc/UTC' },
      { kind: 'ro-bind', path: '/etc/java-17-openjdk', source: join(etc, 'java-17-openjdk') },
      { kind: 'ro-bind', path: '/etc/java-21-openjdk', source: join(etc, 'java-21-openjdk') },
    ]);
    const paths = mounts.map((mount) => mount.path);
    for (const hidden of [
      '/etc/gitconfig',
      '/etc/shadow',
      '/etc/npmrc',
      '/etc/pip.conf',
      '/etc/ssl/private',
    ]) {
      expect(paths).not.toContain(hidden);
    }
  });

  it('binds generated passwd, group, hosts, hostname and resolv.conf in place of the host ones', async () => {
    const generated = join(root, 'generated');
    await writeGeneratedEtc(generated, {
      user: 'agent',
      uid: 1000,
      gid: 1000,
      home: '/home/agent',
      hostname: 'box',
    });
    const mounts = await etcMounts([], generated, etc);
    expect(mounts.map((mount) => mount.path).sort()).toEqual([
      '/etc/group',
      '/etc/hostname',
      '/etc/hosts',
      '/etc/passwd',
      '/etc/resolv.conf',
    ]);
    expect(await readFile(join(generated, 'passwd'), 'utf8')).toContain(
      'agent:x:1000:1000:Caravel sandbox:/home/agent:/bin/bash\n',
    );
    expect(await readFile(join(generated, 'hostname'), 'utf8')).toBe('box\n');
  });

  it('ignores an entry that would climb out of /etc', async () => {
    await writeFile(join(root, 'outside'), 'secret');
    const mounts = await etcMounts(['../outside'], join(root, 'generated'), etc);
    expect(mounts.map((mount) => mount.path)).not.toContain('/outside');
    expect(
      mounts.filter((mount) => mount.kind === 'ro-bind' && mount.source?.includes('outside')),
    ).toEqual([]);
  });
});
