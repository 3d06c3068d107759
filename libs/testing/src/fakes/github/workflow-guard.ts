import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** GitHub's words around the file's path. */ const REFUSAL = [
  'refusing to allow a GitHub App to create or update workflow `',
  '` without `workflows` permission',
] as const;

/**
 * GitHub's answer to a push whose commits create, change or delete `path` under
 * `.github/workflows/`, made with a GitHub App's token that lacks `workflows: write`: the ref is
 * refused with this reason (`! [remote rejected] <src> -> <dst> (<reason>)` on git's stderr),
 * naming the first such file only.
 */
export function workflowRefusal(path: string): string {
  return `${REFUSAL[0]}${path}${REFUSAL[1]}`;
}

/**
 * receive-pack's `proc-receive` hook (githooks(5)): it is handed every pushed `refs/heads/` command
 * and answers `ng <ref> <reason>` for one whose new commits (those no ref has yet) touch
 * `.github/workflows/`, so git reports GitHub's reason on the ref as GitHub does; every other
 * command falls through to receive-pack, which updates it as usual (its lease checked).
 */
const PROC_RECEIVE = `
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const refusal = (path) => ${JSON.stringify(REFUSAL[0])} + path + ${JSON.stringify(REFUSAL[1])};
function read(size) {
  const buffer = Buffer.alloc(size);
  for (let got = 0; got < size; ) {
    const n = fs.readSync(0, buffer, got, size - got, null);
    if (n === 0) throw new Error('proc-receive: receive-pack closed the pipe');
    got += n;
  }
  return buffer;
}
function packets() {
  const lines = [];
  for (;;) {
    const size = parseInt(read(4).toString('latin1'), 16);
    if (size === 0) return lines;
    lines.push(read(size - 4).toString('utf8').replace(/\\n$/, ''));
  }
}
const packet = (line) => {
  const bytes = Buffer.byteLength(line + '\\n') + 4;
  return bytes.toString(16).padStart(4, '0') + line + '\\n';
};
const [version = ''] = packets();
fs.writeSync(1, packet('version=1') + '0000');
const commands = packets();
if (version.includes('push-options')) packets();
let answer = '';
for (const command of commands) {
  const [, newOid, ref] = command.split(' ');
  const touched = /^0+$/.test(newOid)
    ? ''
    : execFileSync('git', ['log', '--format=', '--name-only', '--no-renames', newOid, '--not', '--all', '--', '.github/workflows/'], { encoding: 'utf8' })
        .split('\\n')
        .find(Boolean);
  answer += touched
    ? packet('ng ' + ref + ' ' + refusal(touched))
    : packet('ok ' + ref) + packet('option fall-through');
}
fs.writeSync(1, answer + '0000');
`;

/** The hooks a repository may have of its own, still run when the guard sets `core.hooksPath`. */
const DELEGATED = ['pre-receive', 'update', 'post-receive'] as const;

/**
 * Hooks that make a push refuse workflow changes as GitHub does for an App without
 * `workflows: write` ({@link workflowRefusal}), written once to a directory of their own. Git
 * takes them through {@link env} (config from the environment: the served repositories are not
 * changed); a repository's own receive hooks still run.
 */
export class WorkflowGuard {
  private dir: string | undefined;

  /** The environment `git http-backend` gets for a push the guard watches. */
  env(): Record<string, string> {
    const hooks = this.hooks();
    return {
      GIT_CONFIG_COUNT: '2',
      GIT_CONFIG_KEY_0: 'core.hooksPath',
      GIT_CONFIG_VALUE_0: hooks,
      GIT_CONFIG_KEY_1: 'receive.procReceiveRefs',
      GIT_CONFIG_VALUE_1: 'refs/heads/',
    };
  }

  /** Removes the hooks' directory. */
  dispose(): void {
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }

  private hooks(): string {
    if (this.dir) return this.dir;
    const dir = mkdtempSync(join(tmpdir(), 'caravel-fake-github-hooks-'));
    const write = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      chmodSync(join(dir, name), 0o755);
    };
    write('proc-receive', `#!${process.execPath}\n${PROC_RECEIVE}`);
    for (const hook of DELEGATED) {
      const own = `"$GIT_DIR/hooks/${hook}"`;
      write(hook, `#!/bin/sh\nif [ -x ${own} ]; then exec ${own} "$@"; fi\nexit 0\n`);
    }
    this.dir = dir;
    return dir;
  }
}
