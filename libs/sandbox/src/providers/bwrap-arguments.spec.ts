import { describe, expect, it } from '@jest/globals';
import { bwrapArguments, type BwrapLayout } from './bwrap-arguments.js';

const layout: BwrapLayout = {
  systemMounts: [
    { kind: 'ro-bind', path: '/usr' },
    { kind: 'symlink', path: '/bin', target: 'usr/bin' },
  ],
  hostWorkspace: '/srv/sbx/a/workspace',
  hostHome: '/srv/sbx/a/home',
  innerWorkspace: '/workspace',
  innerHome: '/home/agent',
  sandboxUid: 1000,
  sandboxGid: 1000,
  hostname: 'box',
  bashPath: '/bin/bash',
};

describe('bwrapArguments', () => {
  const args = bwrapArguments(layout, ['--norc', '-c', 'x']);
  const joined = args.join(' ');

  it('unshares every namespace, dies with its parent and drops to a non-root user', () => {
    expect(args.slice(0, 3)).toEqual(['--unshare-all', '--die-with-parent', '--new-session']);
    expect(joined).toContain('--uid 1000 --gid 1000');
    expect(args).not.toContain('--share-net');
  });

  it('mounts the system read-only and the workspace writable at its fixed path', () => {
    expect(joined).toContain('--ro-bind /usr /usr --symlink usr/bin /bin');
    expect(joined).toContain('--bind /srv/sbx/a/workspace /workspace');
    expect(joined).toContain('--tmpfs /tmp');
    expect(joined).toContain('--remount-ro / --chdir /workspace');
  });

  it('caps /tmp and the driver state tmpfs at the given size', () => {
    const sized = bwrapArguments(
      { ...layout, tmpBytes: 1048576, stateDir: '/run/caravel-session' },
      [],
    ).join(' ');
    expect(sized).toContain(
      '--size 1048576 --tmpfs /tmp --size 1048576 --tmpfs /run/caravel-session',
    );
  });

  it('binds a generated file from its source', () => {
    const mounts = [
      { kind: 'ro-bind' as const, path: '/etc/passwd', source: '/srv/sbx/.etc/passwd' },
    ];
    const bound = bwrapArguments({ ...layout, systemMounts: mounts }, []).join(' ');
    expect(bound).toContain('--ro-bind /srv/sbx/.etc/passwd /etc/passwd');
  });

  it('adds extra binds after the workspace, in order, read-only unless writable', () => {
    const extraBinds = [
      { source: '/srv/sbx/a/workspace', path: '/calc-repo', writable: true },
      { source: '/srv/sbx/a/home', path: '/root', writable: true },
      { source: '/srv/tools', path: '/root/tools', writable: false },
    ];
    const bound = bwrapArguments({ ...layout, extraBinds }, []).join(' ');
    expect(bound).toContain(
      '--bind /srv/sbx/a/workspace /workspace --bind /srv/sbx/a/workspace /calc-repo ' +
        '--bind /srv/sbx/a/home /root --ro-bind /srv/tools /root/tools --remount-ro /',
    );
  });

  it('runs the driver after the separator', () => {
    expect(args.slice(args.indexOf('--'))).toEqual(['--', '/bin/bash', '--norc', '-c', 'x']);
  });
});
