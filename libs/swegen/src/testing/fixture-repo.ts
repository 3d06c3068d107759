import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** File changes of one commit: content to write, or `null` to delete. */
export type FixtureChanges = Readonly<Record<string, string | Buffer | null>>;

/** Git's environment in fixtures: no user or system config, a fixed identity. */
export const FIXTURE_GIT_ENV = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Fixture',
  GIT_AUTHOR_EMAIL: 'fixture@example.test',
  GIT_COMMITTER_NAME: 'Fixture',
  GIT_COMMITTER_EMAIL: 'fixture@example.test',
} as const;

/**
 * A git repository built by a test, with a fixed identity and clock so commits are reproducible.
 * For tests and benchmarks only.
 */
export class FixtureRepo {
  private tick = 0;

  private constructor(readonly path: string) {}

  /** A fresh repository in a temporary directory, on branch `main`. */
  static create(prefix = 'swegen-repo-'): FixtureRepo {
    const repo = new FixtureRepo(mkdtempSync(join(tmpdir(), prefix)));
    repo.git('init', '--quiet', '--initial-branch=main');
    return repo;
  }

  /** Runs git in the repository and returns its trimmed output. */
  git(...args: string[]): string {
    const when = `@${1_700_000_000 + this.tick} +0000`;
    return execFileSync('git', ['-c', 'safe.directory=*', ...args], {
      cwd: this.path,
      env: {
        ...FIXTURE_GIT_ENV,
        GIT_AUTHOR_DATE: when,
        GIT_COMMITTER_DATE: when,
      },
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    }).trim();
  }

  /** Writes, deletes or renames (`git mv` through `renames`) files and commits; returns the sha. */
  commit(
    message: string,
    changes: FixtureChanges,
    renames: Readonly<Record<string, string>> = {},
  ): string {
    for (const [from, to] of Object.entries(renames)) {
      mkdirSync(dirname(join(this.path, to)), { recursive: true });
      this.git('mv', from, to);
    }
    for (const [path, content] of Object.entries(changes)) {
      const file = join(this.path, path);
      if (content === null) rmSync(file);
      else {
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, content);
      }
    }
    this.git('add', '-A');
    this.tick += 1;
    this.git('commit', '--quiet', '--allow-empty', '-m', message);
    return this.git('rev-parse', 'HEAD');
  }

  /** Creates and switches to a branch at `from` (default: the current commit). */
  branch(name: string, from = 'HEAD'): void {
    this.git('checkout', '--quiet', '-b', name, from);
  }

  checkout(ref: string): void {
    this.git('checkout', '--quiet', ref);
  }

  /** Removes the repository directory. */
  remove(): void {
    rmSync(this.path, { recursive: true, force: true });
  }
}
