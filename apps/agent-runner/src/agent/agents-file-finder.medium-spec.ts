import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { GitHubApi, GitHubScmReader } from '@caravel/integrations';
import { FakeGitHub } from '@caravel/testing';
import { baseInstructionFiles, InstructionFileFinder } from './agents-file-finder.js';

const REPO = 'acme/widgets';

/** The repository at its base: three AGENTS.md files among ordinary ones, and a lower-case one. */
const FILES: Record<string, string> = {
  'AGENTS.md': 'Run the linter.\n',
  'README.md': 'Widgets.\n',
  'src/AGENTS.md': 'No any.\n',
  'src/index.ts': 'export {};\n',
  'src/parser/lexer.ts': 'export const lex = 1;\n',
  'src/parser/grammar.ts': 'export const grammar = 1;\n',
  'src/server/http/AGENTS.md': 'Routes stay thin.\n',
  'src/server/http/routes.ts': 'export const routes = [];\n',
  'src/server/db/pool.ts': 'export const pool = 1;\n',
  'docs/guide.md': '# Guide\n',
  'tests/unit/lexer.spec.ts': 'test.todo("lex");\n',
  'lib/agents.md': 'Not an instruction file: the name is AGENTS.md, in capitals.\n',
};

/** What the agent reads in a run, in order (the system prompt reads the root AGENTS.md first). */
const READS = [
  'src/index.ts',
  'src/parser/lexer.ts',
  'src/parser/grammar.ts',
  'src/server/http/routes.ts',
  'src/server/db/pool.ts',
  'docs/guide.md',
  'tests/unit/lexer.spec.ts',
  'lib/agents.md',
];

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'safe.directory=*', ...args], { cwd, encoding: 'utf8' }).trim();

// A run's instruction files read on a GitHub (the fake, over real git) through the real reader:
// the calls one run's reads cost, counted on the fake's request log.
describe('instruction files read on GitHub, counted', () => {
  let dir: string;
  let github: FakeGitHub;
  let reader: GitHubScmReader;
  let base: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'caravel-agents-files-'));
    const work = join(dir, 'work');
    for (const [path, text] of Object.entries(FILES)) {
      mkdirSync(dirname(join(work, path)), { recursive: true });
      writeFileSync(join(work, path), text);
    }
    git(work, 'init', '--quiet', '--initial-branch=main');
    git(work, 'add', '.');
    git(work, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', 'base');
    base = git(work, 'rev-parse', 'HEAD');
    const remotes = join(dir, 'remotes');
    mkdirSync(join(remotes, 'acme'), { recursive: true });
    git(dir, 'clone', '--quiet', '--bare', work, join(remotes, `${REPO}.git`));
    github = new FakeGitHub({ root: remotes }).addUserToken('ghu_caravel', 'caravel[bot]');
    github.addRepository(REPO);
    await github.start();
    const api = new GitHubApi({
      baseUrl: github.origin,
      tokens: () => Promise.resolve('ghu_caravel'),
    });
    reader = new GitHubScmReader(api, { owner: 'acme', name: 'widgets' });
  }, 60_000);

  beforeEach(() => {
    github.calls.length = 0;
  });

  afterAll(async () => {
    await github?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** One run's reads: the root AGENTS.md, then the scoped ones of each file the agent reads. */
  async function run(log: string[]): Promise<string[]> {
    const files = baseInstructionFiles(reader, base, (line) => log.push(line));
    const finder = new InstructionFileFinder(files);
    const found = new Set<string>();
    if ((await files.read('AGENTS.md')) !== undefined) found.add('AGENTS.md');
    for (const path of READS) {
      for (const file of await finder.findAgentsFiles(`/workspace/${path}`)) found.add(file.path);
    }
    return [...found].sort();
  }

  const calls = () => github.calls.map((call) => decodeURIComponent(call.path));
  const AGENTS_FILES = ['AGENTS.md', 'src/AGENTS.md', 'src/server/http/AGENTS.md'];

  it('lists the base once and reads only its AGENTS.md files: 1 + 3 calls, not 10', async () => {
    const log: string[] = [];

    expect(await run(log)).toEqual(AGENTS_FILES);
    expect(calls()).toEqual([
      `/repos/${REPO}/git/trees/${base}`,
      ...AGENTS_FILES.map((path) => `/repos/${REPO}/contents/${path}`),
    ]);
    expect(log).toEqual([]);
  });

  it('walks the directories, as before, when GitHub cuts the listing short, and says so once', async () => {
    github.trees.limit(REPO, 3);
    const log: string[] = [];
    try {
      expect(await run(log)).toEqual(AGENTS_FILES);
    } finally {
      github.trees.limit(REPO, undefined);
    }

    expect(calls()[0]).toBe(`/repos/${REPO}/git/trees/${base}`);
    // Every directory of the files read, and their parents: one contents call each.
    expect(calls().slice(1)).toHaveLength(10);
    expect(log).toEqual([expect.stringContaining('too large to list in one call')]);
  });
});
