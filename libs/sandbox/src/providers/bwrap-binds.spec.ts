import { describe, expect, it } from '@jest/globals';
import { assertBinds, resolveBinds } from './bwrap-binds.js';

const paths = { root: '/srv/sbx/a', workspace: '/srv/sbx/a/workspace', home: '/srv/sbx/a/home' };

describe('extra bwrap binds', () => {
  it("resolves the sandbox's own workspace and home writable, a host folder read-only", () => {
    const binds = [
      { path: '/calc-repo', of: 'workspace' as const },
      { path: '/root', of: 'home' as const },
      { path: '/root/tools', hostDir: '/srv/tools' },
    ];
    expect(() => assertBinds(binds)).not.toThrow();
    expect(resolveBinds(binds, paths)).toEqual([
      { source: '/srv/sbx/a/workspace', path: '/calc-repo', writable: true },
      { source: '/srv/sbx/a/home', path: '/root', writable: true },
      { source: '/srv/tools', path: '/root/tools', writable: false },
    ]);
  });

  it.each(['/usr', '/usr/local/x', '/etc', '/tmp', '/workspace', '/home/agent', '/', '/lib64'])(
    "refuses %s, part of the sandbox's own layout",
    (path) => {
      expect(() => assertBinds([{ path, of: 'workspace' }])).toThrow(
        `bind path ${path} is part of the sandbox's own layout`,
      );
    },
  );

  it('refuses relative, unnormalised and repeated paths', () => {
    expect(() => assertBinds([{ path: 'repo', of: 'workspace' }])).toThrow('not an absolute');
    expect(() => assertBinds([{ path: '/a/../usr', of: 'workspace' }])).toThrow('not an absolute');
    expect(() =>
      assertBinds([
        { path: '/r', of: 'workspace' },
        { path: '/r', of: 'home' },
      ]),
    ).toThrow('bind path /r is given twice');
  });
});
