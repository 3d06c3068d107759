#!/usr/bin/env node
// SWE-gen benchmark: the patch split and the task skeleton for one PR on a repository with a long
// history (5,000 commits by default, 200 files), no model and no network.
//   npm run bench:swegen (or, once built: node tools/bench/swegen/run.mjs [--commits 5000] [--runs 5])
// The history is written with `git fast-import` (seconds, not minutes); the PR forks off 50 commits
// before the tip, changes 5 source files and adds 2 tests. Reported: median and max over the runs of
// splitPatches (merge-base, name list, fix and bug patches, test extraction) and writeTaskSkeleton.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { printSummary, row as summaryRow } from '../summary.mjs';
import { GitRunner, splitPatches, writeTaskSkeleton } from '@caravel/swegen';

const { values } = parseArgs({
  options: { commits: { type: 'string', default: '5000' }, runs: { type: 'string', default: '5' } },
});
const commits = Number(values.commits);
const runs = Number(values.runs);
const FILES = 200;

/** A fast-import stream: `commits` commits on main, each touching one of FILES source files. */
function history() {
  const lines = [];
  const blob = (path, text) => {
    lines.push(`M 100644 inline ${path}`, `data ${Buffer.byteLength(text)}`, text);
  };
  for (let c = 1; c <= commits; c += 1) {
    const message = `commit ${c}`;
    lines.push(
      'commit refs/heads/main',
      `committer Bench <bench@example.test> ${1_700_000_000 + c} +0000`,
    );
    lines.push(`data ${message.length}`, message);
    if (c === 1)
      for (let f = 0; f < FILES; f += 1) blob(`src/mod${f}.js`, `export const v${f} = 0;\n`);
    else
      blob(
        `src/mod${c % FILES}.js`,
        `export const v${c % FILES} = ${c};\n${'// line\n'.repeat(c % 40)}`,
      );
  }
  return `${lines.join('\n')}\n`;
}

function git(cwd, ...args) {
  return execFileSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }).trim();
}

const scratch = await mkdtemp(join(tmpdir(), 'swegen-bench-'));
try {
  const repo = join(scratch, 'repo');
  git(scratch, 'init', '--quiet', '--initial-branch=main', repo);
  let started = performance.now();
  const imported = spawnSync('git', ['fast-import', '--quiet'], { cwd: repo, input: history() });
  if (imported.status !== 0) throw new Error(imported.stderr.toString());
  const importMs = performance.now() - started;
  const counted = Number(git(repo, 'rev-list', '--count', 'main'));
  if (counted !== commits) throw new Error(`history has ${counted} commits, not ${commits}`);
  const env = {
    GIT_AUTHOR_NAME: 'B',
    GIT_AUTHOR_EMAIL: 'b@x',
    GIT_COMMITTER_NAME: 'B',
    GIT_COMMITTER_EMAIL: 'b@x',
  };
  const fork = git(repo, 'rev-parse', `main~50`);
  git(repo, 'checkout', '--quiet', '-b', 'pr', fork);
  for (let f = 0; f < 5; f += 1)
    execFileSync('sh', ['-c', `echo "// fixed" >> src/mod${f}.js`], { cwd: repo });
  execFileSync(
    'sh',
    ['-c', 'mkdir -p test && echo "test 1" > test/a.test.js && echo "test 2" > test/b.test.js'],
    { cwd: repo },
  );
  git(repo, 'add', '-A');
  execFileSync('git', ['commit', '--quiet', '-m', 'fix'], {
    cwd: repo,
    env: { ...process.env, ...env },
  });
  const head = git(repo, 'rev-parse', 'HEAD');
  const base = git(repo, 'rev-parse', 'main');
  const prFiles = git(repo, 'diff', '--name-only', fork, head).split('\n');
  const splitMs = [];
  const skeletonMs = [];
  for (let r = 0; r < runs; r += 1) {
    started = performance.now();
    const split = await splitPatches({
      git: new GitRunner(repo),
      baseSha: base,
      headSha: head,
      prFiles,
    });
    splitMs.push(performance.now() - started);
    started = performance.now();
    await writeTaskSkeleton(join(scratch, `task-${r}`), {
      split,
      facts: { cloneUrl: 'https://github.com/bench/repo.git', headSha: head, prNumber: 1 },
      metadata: {
        difficulty: 'easy',
        category: 'bugfix',
        tags: ['a', 'b', 'c'],
        sourceRepo: 'bench/repo',
        sourcePr: 1,
        baseSha: split.base,
        headSha: head,
      },
      instruction: 'Benchmark instruction.',
    });
    skeletonMs.push(performance.now() - started);
    if (split.sourceFiles.length !== 5 || split.testFiles.length !== 2)
      throw new Error('unexpected split');
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const fmt = (xs) => `median ${median(xs).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms`;
  console.log(
    `history: ${commits} commits, ${FILES} files, imported in ${(importMs / 1000).toFixed(1)} s`,
  );
  console.log(`patch split (${runs} runs): ${fmt(splitMs)}`);
  console.log(`skeleton write (${runs} runs): ${fmt(skeletonMs)}`);
  console.log(`split + skeleton: median ${(median(splitMs) + median(skeletonMs)).toFixed(1)} ms`);
  printSummary('swegen', [
    summaryRow({ what: 'patch split (ms)', value: median(splitMs), floor: 'none (absolute)' }),
    summaryRow({
      what: 'skeleton write (ms)',
      value: median(skeletonMs),
      floor: 'none (absolute)',
    }),
  ]);
} finally {
  await rm(scratch, { recursive: true, force: true });
}
