import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PR_EVALUATION_TOOL } from '../create/pr-evaluation.js';
import { FixtureRepo } from './fixture-repo.js';

/** A merged PR of the farm fixture, in GitHub's JSON shape, with its file list. */
export interface FarmFixturePull {
  readonly pull: Record<string, unknown> & { number: number; created_at: string };
  readonly files: { filename: string; status: string }[];
}

/** What a farm test or benchmark needs: the source repository, its PRs and issues. */
export interface FarmFixture {
  readonly repo: FixtureRepo;
  readonly pulls: FarmFixturePull[];
  readonly issues: { number: number; title: string; body: string }[];
}

/** One PR of the fixture: `sources` source files and one test (unless not), linked to an issue unless not. */
export interface FarmFixturePr {
  readonly number: number;
  readonly sources?: number;
  readonly linkIssue?: boolean;
  readonly merged?: boolean;
  /** Whether the PR adds its test (default true). */
  readonly tests?: boolean;
}

/**
 * Builds `acme/strings` with one branch per PR, each changing `sources` JavaScript files (3 by
 * default) and adding a test, created one day apart (PR n on 2026-01-n). The PR objects point
 * their `clone_url` at the local repository, so the pipeline fetches it with no network.
 */
export function buildFarmFixture(prs: readonly FarmFixturePr[]): FarmFixture {
  const repo = FixtureRepo.create('swegen-farm-');
  const base = repo.commit('Initial', { 'package.json': '{ "name": "strings" }\n' });
  const pulls: FarmFixturePull[] = [];
  const issues: FarmFixture['issues'] = [];
  for (const pr of prs) {
    repo.branch(`pr-${pr.number}`, base);
    const changes: Record<string, string> = {};
    for (let i = 0; i < (pr.sources ?? 3); i += 1)
      changes[`src/pr${pr.number}/m${i}.js`] = `module.exports = ${pr.number * 10 + i};\n`;
    if (pr.tests !== false)
      changes[`test/pr${pr.number}.test.js`] =
        `require('node:test')('pr ${pr.number}', () => {});\n`;
    const head = repo.commit(`Fix ${pr.number}`, changes);
    repo.checkout('main');
    const day = String(pr.number).padStart(2, '0');
    const linked = pr.linkIssue !== false;
    if (linked)
      issues.push({ number: 100 + pr.number, title: `Bug ${pr.number}`, body: 'Broken.' });
    pulls.push({
      pull: {
        number: pr.number,
        state: 'closed',
        title: `Fix bug ${pr.number}`,
        body: linked ? `Fixes #${100 + pr.number}.` : 'A change.',
        merged_at: pr.merged === false ? null : `2026-01-${day}T12:00:00Z`,
        created_at: `2026-01-${day}T00:00:00Z`,
        html_url: `https://github.com/acme/strings/pull/${pr.number}`,
        merge_commit_sha: null,
        base: { sha: base, ref: 'main', repo: { full_name: 'acme/strings', clone_url: repo.path } },
        head: { sha: head, ref: `pr-${pr.number}` },
      },
      files: Object.keys(changes)
        .sort()
        .map((filename) => ({ filename, status: 'added' })),
    });
  }
  return { repo, pulls, issues };
}

/** A bare dataset repository (`<root>/<owner>/<name>.git`) whose main ignores `tasks/`. */
export function buildDatasetRepo(root: string, fullName: string): string {
  const bare = join(root, `${fullName}.git`);
  mkdirSync(bare, { recursive: true });
  const git = (cwd: string, ...args: string[]): string =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
      cwd,
      env: { PATH: '/usr/bin:/bin', GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
      encoding: 'utf8',
    });
  git(bare, 'init', '--quiet', '--bare', '--initial-branch=main');
  git(bare, 'config', 'http.receivepack', 'true');
  const work = mkdtempSync(join(tmpdir(), 'swegen-dataset-'));
  git(work, 'init', '--quiet', '--initial-branch=main');
  writeFileSync(join(work, '.gitignore'), 'tasks/\n');
  writeFileSync(join(work, 'README.md'), '# dataset\n');
  git(work, 'add', '-A');
  git(work, 'commit', '--quiet', '-m', 'Dataset template');
  git(work, 'push', '--quiet', bare, 'main');
  rmSync(work, { recursive: true, force: true });
  return bare;
}

/** `n` scripted evaluation answers (substantial), one per PR the pipeline evaluates. */
export function evaluationResponses(n: number): {
  origin: string;
  content: string;
  toolCalls: { name: string; args: Record<string, unknown> }[];
}[] {
  return Array.from({ length: n }, (_, i) => ({
    origin: `farm-fixture:${i}`,
    content: 'Evaluating.',
    toolCalls: [
      {
        name: PR_EVALUATION_TOOL,
        args: {
          is_substantial: true,
          reason: 'Three modules change.',
          instruction: 'Fix the modules so the tests pass.',
          difficulty: 'easy',
          category: 'bugfix',
          tags: ['javascript', 'fixture', 'farm'],
        },
      },
    ],
  }));
}

/**
 * A scripted model file (the `scripted:` format) for `n` PRs of a farm: per PR the evaluation,
 * then the completion agent finishing at once (runs with `--no-validate`).
 */
export function farmModelScript(n: number): string {
  const responses = evaluationResponses(n).flatMap((evaluation) => [
    {
      content: evaluation.content,
      tool_calls: evaluation.toolCalls,
    },
    { content: 'Done.', tool_calls: [{ name: 'finish', args: { summary: 'skeleton kept' } }] },
  ]);
  return JSON.stringify({ responses }, null, 2);
}
