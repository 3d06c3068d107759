#!/usr/bin/env node
// SWE-gen farm benchmark: PRs per minute for `swegen farm --dry-run` with a scripted model.
//   node tools/scripts/build.mjs && node tools/bench/swegen/farm.mjs [--prs 40] [--runs 3]
// A source repository with --prs merged PRs (3 sources + 1 test each, an issue each) is served by
// the fake GitHub on loopback (closed-PR pages of 100, PR detail, files, issues, timeline). Each
// dry run streams every PR through the filters, the linked-issue gate, the full file list, the repo
// cache, the patch split and the model's evaluation (scripted: no network, no tokens), and records
// nothing. Reported: PRs per minute, median and min over the runs.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { CannedChatModel } from '@caravel/agent/langchain';
import { GithubPrSource, runFarm } from '@caravel/swegen';
import { buildFarmFixture, evaluationResponses } from '@caravel/swegen/testing';
// The fakes' own built module: @caravel/testing's entry also loads Jest helpers.
import { FakeGitHub } from '../../../libs/testing/dist/fakes/index.js';

const { values } = parseArgs({
  options: { prs: { type: 'string', default: '40' }, runs: { type: 'string', default: '3' } },
});
const prs = Number(values.prs);
const runs = Number(values.runs);

// Numbers past 28 would not be valid January days; spread PRs over months instead.
const fixture = buildFarmFixture(
  Array.from({ length: Math.min(prs, 28) }, (_, i) => ({ number: i + 1 })),
);
const pulls = [];
for (let k = 0; k < prs; k += 1) {
  const base = fixture.pulls[k % fixture.pulls.length];
  const number = k + 1;
  const month = String(1 + Math.floor(k / 28)).padStart(2, '0');
  const day = String(1 + (k % 28)).padStart(2, '0');
  pulls.push({
    files: base.files,
    pull: {
      ...base.pull,
      number,
      body: `Fixes #${1000 + number}.`,
      created_at: `2026-${month}-${day}T00:00:00Z`,
      html_url: `https://github.com/acme/strings/pull/${number}`,
    },
  });
}
const fake = new FakeGitHub().addUserToken('bench', 'bench');
for (const pull of pulls) fake.addSourcePull('acme/strings', pull);
for (let n = 1; n <= prs; n += 1)
  fake.addSourceIssue('acme/strings', { number: 1000 + n, title: `Bug ${n}`, body: 'Broken.' });
await fake.start();

const rates = [];
for (let r = 0; r < runs; r += 1) {
  const scratch = await mkdtemp(join(tmpdir(), 'swegen-farm-bench-'));
  const model = new CannedChatModel({
    responses: evaluationResponses(prs),
    file: 'bench',
    kind: 'scripted',
  });
  const started = performance.now();
  const result = await runFarm({
    repo: 'acme/strings',
    source: new GithubPrSource({ token: 'bench', apiUrl: fake.origin }),
    stateDir: join(scratch, '.swegen'),
    tasksDir: join(scratch, 'tasks'),
    create: { model, validate: false },
    dryRun: true,
  });
  const minutes = (performance.now() - started) / 60_000;
  if (result.prsSeen !== prs) throw new Error(`saw ${result.prsSeen} PRs, expected ${prs}`);
  rates.push(prs / minutes);
  console.log(
    `run ${r + 1}: ${prs} PRs in ${(minutes * 60).toFixed(1)} s = ${(prs / minutes).toFixed(0)} PRs/min`,
  );
  await rm(scratch, { recursive: true, force: true });
}
await fake.close();
fixture.repo.remove();
rates.sort((a, b) => a - b);
console.log(
  `farm dry run, ${prs} PRs, ${runs} runs: median ${rates[Math.floor(runs / 2)].toFixed(0)} PRs/min, min ${rates[0].toFixed(0)} PRs/min`,
);
