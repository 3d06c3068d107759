import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { DirectoryToolSandbox } from './directory-tool-sandbox.js';

/** A throwaway git repository with committed files, and a sandbox over it. */
export interface TempRepo {
  root: string;
  sandbox: DirectoryToolSandbox;
  /** Writes a file directly (not through the sandbox). */
  write(path: string, content: string): void;
  git(...args: string[]): string;
  remove(): void;
}

/** Creates a repository holding `files`, all committed on `main`. */
export function createTempRepo(files: Record<string, string> = {}): TempRepo {
  const root = mkdtempSync(join(tmpdir(), 'caravel-tools-'));
  const git = (...args: string[]): string =>
    execFileSync('git', args, { cwd: root, encoding: 'utf8' });
  const write = (path: string, content: string): void => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  };
  git('init', '--quiet', '--initial-branch=main');
  git('config', 'user.email', 'tests@caravel.invalid');
  git('config', 'user.name', 'Caravel tests');
  git('config', 'commit.gpgsign', 'false');
  for (const [path, content] of Object.entries(files)) write(path, content);
  git('add', '-A');
  git('commit', '--quiet', '--allow-empty', '-m', 'initial');
  return {
    root,
    sandbox: new DirectoryToolSandbox(root),
    write,
    git,
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}
