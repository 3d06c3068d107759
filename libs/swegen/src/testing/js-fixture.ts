import { FixtureRepo } from './fixture-repo.js';

/** A small JavaScript repository with a real bug-fix PR, as a test or a benchmark needs it. */
export interface JsBugFixFixture {
  readonly repo: FixtureRepo;
  /** main after the PR forked off (so the merge-base differs from the PR's base). */
  readonly baseSha: string;
  readonly forkSha: string;
  readonly headSha: string;
  /** The injected PR file (`--pr-json`) for `acme/strings#7`. */
  readonly prJson: Record<string, unknown>;
}

const SLUGIFY_BUG = `'use strict';
const { collapse } = require('./whitespace.js');

function slugify(text) {
  return collapse(String(text).toLowerCase())
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-/, '');
}

module.exports = { slugify };
`;

const SLUGIFY_FIX = SLUGIFY_BUG.replace(".replace(/^-/, '');", ".replace(/^-+|-+$/g, '');");

const TEST = `'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { slugify, collapse } = require('../src/index.js');
const { cases } = require('./helpers/cases.js');

test('slugify drops leading and trailing dashes', () => {
  for (const [input, expected] of cases) assert.strictEqual(slugify(input), expected);
});

test('collapse squeezes runs of spaces', () => {
  assert.strictEqual(collapse('a   b'), 'a b');
});
`;

/**
 * Builds `acme/strings` in a temporary directory: a bug in `slugify` (a trailing dash is kept),
 * then main moves on, then a PR branch fixes the bug across three source files and adds a test,
 * a helper under `test/helpers/` and a JSON fixture. Tests run with `node --test`, no dependencies.
 */
export function buildJsBugFixFixture(): JsBugFixFixture {
  const repo = FixtureRepo.create('swegen-js-');
  const forkSha = repo.commit('Initial strings library', {
    'package.json': '{\n  "name": "strings",\n  "version": "1.0.0",\n  "private": true\n}\n',
    'src/index.js': "'use strict';\nmodule.exports = { ...require('./slugify.js') };\n",
    'src/slugify.js': SLUGIFY_BUG,
    'src/whitespace.js':
      "'use strict';\nfunction collapse(s) {\n  return s.trim();\n}\nmodule.exports = { collapse };\n",
    'README.md': '# strings\n',
  });
  repo.branch('fix-trailing-dash');
  const headSha = repo.commit('Drop trailing dashes in slugify (fixes #3)', {
    'src/slugify.js': SLUGIFY_FIX,
    'src/whitespace.js':
      "'use strict';\nfunction collapse(s) {\n  return s.trim().replace(/ +/g, ' ');\n}\nmodule.exports = { collapse };\n",
    'src/index.js':
      "'use strict';\nmodule.exports = { ...require('./slugify.js'), ...require('./whitespace.js') };\n",
    'test/slugify.test.js': TEST,
    'test/helpers/cases.js':
      "'use strict';\nmodule.exports = { cases: require('../fixtures/cases.json') };\n",
    'test/fixtures/cases.json': '[["Hello World!", "hello-world"], ["  Trim me  ", "trim-me"]]\n',
  });
  repo.checkout('main');
  const baseSha = repo.commit('Docs: usage', {
    'README.md': '# strings\n\nUsage: slugify(text)\n',
  });
  return { repo, baseSha, forkSha, headSha, prJson: prJsonFor(baseSha, headSha) };
}

function prJsonFor(baseSha: string, headSha: string): Record<string, unknown> {
  return {
    pull_request: {
      number: 7,
      title: 'Drop trailing dashes in slugify',
      body: 'Fixes #3. slugify("Hello World!") returned "hello-world-".',
      merged: true,
      merged_at: '2026-01-02T03:04:05Z',
      created_at: '2026-01-01T00:00:00Z',
      html_url: 'https://github.com/acme/strings/pull/7',
      merge_commit_sha: null,
      base: {
        sha: baseSha,
        ref: 'main',
        repo: { full_name: 'acme/strings', clone_url: 'https://github.com/acme/strings.git' },
      },
      head: { sha: headSha, ref: 'fix-trailing-dash' },
    },
    issues: [
      {
        number: 3,
        title: 'slugify keeps a trailing dash',
        body: 'slugify("Hello World!") gives "hello-world-"; expected "hello-world".',
      },
    ],
  };
}
