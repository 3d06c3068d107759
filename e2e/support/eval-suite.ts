import { FixtureRepo, jsFixtureModelScript } from '@caravel/swegen/testing';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const SLUGIFY_BUG = `'use strict';
function slugify(text) {
  return String(text).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-/, '');
}
module.exports = { slugify };
`;
const SLUGIFY_FIX = SLUGIFY_BUG.replace(".replace(/^-/, '')", ".replace(/^-+|-+$/g, '')");
const COLLAPSE_BUG = `'use strict';
function collapse(s) {
  return s.trim();
}
module.exports = { collapse };
`;
const COLLAPSE_FIX = COLLAPSE_BUG.replace('s.trim();', "s.trim().replace(/ +/g, ' ');");

const testOf = (module: string, name: string, input: string, expected: string) => `'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { ${name} } = require('../src/${module}.js');
test('${name}', () => assert.strictEqual(${name}(${JSON.stringify(input)}), ${JSON.stringify(expected)}));
`;

interface SuitePr {
  number: number;
  module: string;
  fixed: string;
  test: string;
  issue: string;
}

const PRS: SuitePr[] = [
  {
    number: 1,
    module: 'slugify',
    fixed: SLUGIFY_FIX,
    test: testOf('slugify', 'slugify', 'Hello World!', 'hello-world'),
    issue:
      'slugify("Hello World!") returns "hello-world-" with a trailing dash; it should be "hello-world".',
  },
  {
    number: 2,
    module: 'collapse',
    fixed: COLLAPSE_FIX,
    test: testOf('collapse', 'collapse', ' a   b ', 'a b'),
    issue:
      'collapse(" a   b ") returns "a   b"; runs of spaces inside should become one space: "a b".',
  },
];

function prJson(repo: FixtureRepo, pr: SuitePr, base: string, head: string): unknown {
  return {
    pull_request: {
      number: pr.number,
      title: `Fix ${pr.module}`,
      body: `Fixes #${pr.number + 10}.`,
      merged: true,
      merged_at: `2026-01-0${pr.number}T12:00:00Z`,
      created_at: `2026-01-0${pr.number}T00:00:00Z`,
      html_url: `https://github.com/acme/strings/pull/${pr.number}`,
      base: { sha: base, ref: 'main', repo: { full_name: 'acme/strings', clone_url: repo.path } },
      head: { sha: head, ref: `fix-${pr.module}` },
    },
    issues: [{ number: pr.number + 10, title: `${pr.module} is wrong`, body: pr.issue }],
  };
}

/** The model script `swegen create` runs with for one PR: the JS fixture's, for this PR's test. */
function createScript(pr: SuitePr): string {
  const script = JSON.parse(jsFixtureModelScript()) as {
    responses: { tool_calls: { args: Record<string, unknown> }[] }[];
  };
  const [evaluation, , , testCommand] = script.responses;
  Object.assign(evaluation!.tool_calls[0]!.args, { instruction: pr.issue });
  Object.assign(testCommand!.tool_calls[0]!.args, {
    new_string: `\nnode --test test/${pr.module}.test.js\n`,
  });
  return JSON.stringify(script);
}

/** An agent's script: write the fixed modules, commit, submit (one model call each). */
function agentScript(fixes: readonly SuitePr[]): string {
  const usage = { input_tokens: 1000, output_tokens: 50 };
  const responses = [
    ...fixes.map((pr) => ({
      content: `Fixing ${pr.module}.`,
      tool_calls: [
        { name: 'write_file', args: { path: `src/${pr.module}.js`, content: pr.fixed } },
      ],
      usage,
    })),
    {
      content: 'Committing.',
      tool_calls: [
        {
          name: 'commit_and_open_pr',
          args: { commit_message: 'fix: the bug', title: 'fix: the bug', body: 'Fixed.' },
        },
      ],
      usage,
    },
    { content: 'Done.', tool_calls: [{ name: 'submit', args: {} }], usage },
  ];
  return JSON.stringify({ responses });
}

/** What the eval acceptance test works with, all under its scratch folder. */
export interface EvalSuiteFixture {
  readonly repo: FixtureRepo;
  /** `swegen create` arguments for each PR (run from the scratch folder). */
  readonly createArgs: string[][];
}

/**
 * `acme/strings` with two merged PRs from the same base, each fixing one module (slugify keeps a
 * trailing dash; collapse does not squeeze spaces) and adding its test; the PR files and create
 * scripts; and two configurations: `fixes-both.json` (its agent fixes both modules: resolves
 * both tasks) and `fixes-one.json` (only slugify: breaks the collapse task).
 */
export async function buildEvalSuite(scratch: string): Promise<EvalSuiteFixture> {
  const repo = FixtureRepo.create('eval-suite-');
  const base = repo.commit('Strings library', {
    'package.json': '{\n  "name": "strings",\n  "private": true\n}\n',
    'src/slugify.js': SLUGIFY_BUG,
    'src/collapse.js': COLLAPSE_BUG,
  });
  const createArgs: string[][] = [];
  for (const pr of PRS) {
    repo.branch(`fix-${pr.module}`, base);
    const head = repo.commit(`Fix ${pr.module}`, {
      [`src/${pr.module}.js`]: pr.fixed,
      [`test/${pr.module}.test.js`]: pr.test,
    });
    repo.checkout('main');
    await writeFile(
      join(scratch, `pr${pr.number}.json`),
      JSON.stringify(prJson(repo, pr, base, head)),
    );
    await writeFile(join(scratch, `create${pr.number}.json`), createScript(pr));
    createArgs.push(
      ['create', '--repo-path', repo.path, '--pr-json', `pr${pr.number}.json`]
        .concat(['--model', `scripted:create${pr.number}.json`, '--runner', 'bwrap'])
        .concat(['--min-source-files', '1']),
    );
  }
  await writeFile(join(scratch, 'fixes-both.yaml'), agentScript(PRS));
  await writeFile(join(scratch, 'fixes-one.yaml'), agentScript(PRS.slice(0, 1)));
  for (const name of ['fixes-both', 'fixes-one'])
    await writeFile(
      join(scratch, `${name}.json`),
      JSON.stringify({ model: `scripted:${name}.yaml`, env: { LOG_LEVEL: 'error' } }),
    );
  return { repo, createArgs };
}
