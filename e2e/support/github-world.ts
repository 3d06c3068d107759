import { seedRemote } from '@caravel/sandbox/testing';
import { FakeGitHub, type FakeGitHubPull } from '@caravel/testing';
import { expect } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { eventually } from './walking-skeleton.js';

const APP_ID = '4242';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

/** Runs git in `cwd` and returns its trimmed output. */
export const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'safe.directory=*', ...args], { cwd, encoding: 'utf8' }).trim();

/** The branch the runner works on for a thread. */
export const threadBranch = (threadId: string): string => `caravel/${threadId.slice(0, 8)}`;

/**
 * A fake GitHub App installed on some repositories (`owner/name`), each a bare git remote with one
 * seed commit on `main`, served over REST and git smart-HTTP; and the settings that point Caravel
 * at it. Every API call and git request must carry a token the fake minted.
 */
export class GitHubWorld {
  readonly github: FakeGitHub;

  constructor(
    private readonly dir: string,
    readonly repositories: readonly string[],
  ) {
    this.github = new FakeGitHub({ root: join(dir, 'remotes'), app: { id: APP_ID, publicKey } });
    for (const repository of repositories) this.github.addRepository(repository);
  }

  /** Seeds the remotes, starts the fake; resolves with the GitHub App settings to reach it. */
  async start(): Promise<Record<string, string>> {
    for (const repository of this.repositories) {
      await seedRemote(join(this.dir, 'remotes'), repository, '# Hello World\n');
    }
    const origin = await this.github.start();
    return {
      GITHUB_APP_ID: APP_ID,
      GITHUB_APP_PRIVATE_KEY: PEM.replace(/\n/g, '\\n'),
      GITHUB_API_URL: origin,
      GITHUB_HOST: origin,
    };
  }

  close(): Promise<void> {
    return this.github.close();
  }

  /** The bare remote of `owner/name`. */
  bareOf(repository: string): string {
    const [owner = '', name = ''] = repository.split('/');
    return join(this.dir, 'remotes', owner, `${name}.git`);
  }

  /**
   * The draft PR opened from the thread's branch on `repository`, once it exists, checked: based
   * on `main`, a draft, with the scripted fix pushed on its branch.
   */
  async draftPullOf(
    repository: string,
    threadId: string,
    file: { path: string; content: string },
    timeoutMs = 120_000,
  ): Promise<FakeGitHubPull> {
    const branch = threadBranch(threadId);
    const key = repository.toLowerCase();
    const pull = await eventually(
      () => Promise.resolve(this.github.state.pulls.get(key)?.find((p) => p.head === branch)),
      timeoutMs,
    );
    expect(pull).toMatchObject({ base: 'main', draft: true });
    expect(git(this.bareOf(repository), 'show', `${branch}:${file.path}`)).toBe(file.content);
    return pull;
  }

  /** The web address of a pull request, as the fake answers it. */
  pullUrl(repository: string, number: number): string {
    return `${this.github.origin}/${repository.toLowerCase()}/pull/${number}`;
  }

  /** Every GitHub call and git request carried an installation token the fake minted. */
  expectOnlyMintedTokens(): void {
    expect(this.github.rejected).toEqual([]);
    expect(this.github.minted.length).toBeGreaterThan(0);
  }
}
