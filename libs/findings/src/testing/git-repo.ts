import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { REVIEW_DIFF_FLAGS } from '../diff/unified-diff.js';

/** A throwaway git repository for tests that need diffs made by real git. */
export interface GitRepo {
  root: string;
  /** Writes files (a Buffer as bytes), then stages and commits everything; returns the sha. */
  commit(message: string, files?: Record<string, string | Buffer>, remove?: string[]): string;
  git(...args: string[]): string;
  /** `git diff` between two commits with the flags the reviewer uses. */
  diff(from: string, to: string, ...extra: string[]): string;
  remove(): void;
}

/** Creates an empty repository on `main` with a test identity and no signing or hooks. */
export function createGitRepo(): GitRepo {
  const root = mkdtempSync(join(tmpdir(), 'caravel-findings-'));
  const git = (...args: string[]): string =>
    execFileSync('git', ['-c', 'core.hooksPath=/dev/null', '-c', 'core.quotePath=true', ...args], {
      cwd: root,
      encoding: 'utf8',
    });
  git('init', '--quiet', '--initial-branch=main');
  git('config', 'user.email', 'tests@caravel.invalid');
  git('config', 'user.name', 'Caravel tests');
  git('config', 'commit.gpgsign', 'false');
  return {
    root,
    git,
    commit(message, files = {}, remove = []) {
      for (const [path, content] of Object.entries(files)) {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), content);
      }
      for (const path of remove) git('rm', '--quiet', '--', path);
      git('add', '-A');
      git('commit', '--quiet', '--allow-empty', '-m', message);
      return git('rev-parse', 'HEAD').trim();
    },
    diff: (from, to, ...extra) => git('diff', ...REVIEW_DIFF_FLAGS, ...extra, from, to),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}
