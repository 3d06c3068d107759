import { afterEach, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkInterpreters, type BundleShell } from './bundle-install.js';
import { interpreterOf, loadBundle, loadBundles } from './bundle-load.js';

let root: string | undefined;

/** Writes files (path → content) under a fresh folder. */
function tree(files: Record<string, string>): string {
  root = mkdtempSync(join(tmpdir(), 'caravel-bundles-'));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

/** A bash on this machine standing in for a sandbox's session (the check is plain shell). */
const hostShell: BundleShell = {
  exec: (command) => {
    const run = spawnSync('bash', ['--norc', '--noprofile', '-c', command], {
      encoding: 'utf8',
      env: { PATH: '/usr/bin:/bin' },
    });
    return Promise.resolve({
      exitCode: run.status ?? 1,
      output: `${run.stdout}${run.stderr}`,
      timedOut: false,
      truncated: false,
      outputBytes: 0,
      elapsedMs: 0,
    });
  },
};

afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

describe('loading bundles', () => {
  it('finds a bundle in a folder of bundles or in a SWE-agent checkout, reads its files and interpreters', async () => {
    const dir = tree({
      'tools/windowed/config.yaml':
        'tools:\n  open:\n    signature: open <path>\nstate_command: _state\n',
      'tools/windowed/bin/open': '#!/usr/bin/env python3\nprint(1)\n',
      'tools/windowed/bin/_state': '#!/bin/bash\necho {}\n',
      'tools/windowed/bin/plain': 'echo no shebang\n',
      'tools/windowed/install.sh': 'export X=1\n',
      'tools/windowed/lib/windowed.py': 'WINDOW = 100\n',
    });
    const bundle = await loadBundle(dir, 'windowed');
    expect(bundle.source).toBe(join(dir, 'tools', 'windowed'));
    expect(bundle.hasInstallScript).toBe(true);
    expect(bundle.files.map((f) => [f.path, f.executable])).toEqual([
      ['bin/_state', true],
      ['bin/open', true],
      ['bin/plain', true],
      ['config.yaml', false],
      ['install.sh', false],
      ['lib/windowed.py', false],
    ]);
    expect(bundle.interpreters).toEqual([
      { file: 'bin/_state', line: '/bin/bash', program: '/bin/bash' },
      { file: 'bin/open', line: '/usr/bin/env python3', program: 'python3' },
    ]);
    expect((await loadBundle(join(dir, 'tools'), 'windowed')).name).toBe('windowed');
  });

  it('refuses a bundle without bin/, a missing bundle, a link, and two bundles declaring one command', async () => {
    const dir = tree({
      'nobin/config.yaml': 'tools:\n  open: {}\n',
      'a/config.yaml': 'tools:\n  submit: {}\n',
      'a/bin/submit': 'echo a\n',
      'b/config.yaml': 'tools:\n  submit: {}\n',
      'b/bin/submit': 'echo b\n',
      'linked/config.yaml': 'tools: {}\n',
    });
    await expect(loadBundle(dir, 'nobin')).rejects.toThrow(
      "bundle 'nobin' (" + join(dir, 'nobin') + ') has no bin/ folder for its commands (open)',
    );
    await expect(loadBundle(dir, 'absent')).rejects.toThrow(
      `no SWE-agent bundle 'absent' in ${dir} (looked for absent/config.yaml and tools/absent/config.yaml)`,
    );
    await expect(loadBundle(dir, '../a')).rejects.toThrow("'../a' is not a bundle name");
    symlinkSync('/etc/hostname', join(dir, 'linked', 'secret'));
    await expect(loadBundle(dir, 'linked')).rejects.toThrow(
      "bundle 'linked': secret is not a plain file or folder (links are not copied)",
    );
    await expect(loadBundles(dir, ['a', 'b'])).rejects.toThrow(
      "bundles 'a' and 'b' both declare the command 'submit'",
    );
  });

  it('reads the interpreter of env -S and flagged #! lines, and none without #!', () => {
    const of = (text: string) => interpreterOf('bin/x', Buffer.from(text));
    expect(of('#!/usr/bin/env -S python3 -u\n')?.program).toBe('python3');
    expect(of('#! /usr/bin/perl -w\n')?.program).toBe('/usr/bin/perl');
    expect(of('echo hi\n')).toBeNull();
  });

  it('names the bundle, file and interpreter the sandbox lacks, in one line', async () => {
    const dir = tree({
      'ok/config.yaml': 'tools:\n  a: {}\n',
      'ok/bin/a': '#!/bin/bash\n',
      'old/config.yaml': 'tools:\n  b: {}\n  c: {}\n',
      'old/bin/b': '#!/usr/bin/env python2.4\n',
      'old/bin/c': '#!/opt/nowhere/ruby\n',
    });
    await expect(checkInterpreters(hostShell, [await loadBundle(dir, 'ok')])).resolves.toBe(
      undefined,
    );
    const bundles = await loadBundles(dir, ['ok', 'old']);
    const error = (await checkInterpreters(hostShell, bundles).catch((e: unknown) => e)) as Error;
    expect(error.message).toBe(
      "SWE-agent bundle 'old': bin/b needs python2.4 (#!/usr/bin/env python2.4), which the sandbox does not have (and 1 more file(s))",
    );
    expect(error.message).not.toContain('\n');
  });
});
