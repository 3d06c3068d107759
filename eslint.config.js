// ESLint flat config: type-aware TypeScript rules, Prettier compatibility, and Nx module boundaries.
import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';
import { builtinRules } from 'eslint/use-at-your-own-risk';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const DOMAIN_BANNED = [
  '@nestjs/*',
  'kysely',
  'pg',
  'nats',
  '@nats-io/*',
  '@electric-sql/*',
  'express',
];

/** Who may depend on whom. Apps never import apps; domain libraries import no frameworks. */
const depConstraints = [
  {
    sourceTag: 'type:domain',
    onlyDependOnLibsWithTags: ['type:domain'],
    bannedExternalImports: DOMAIN_BANNED,
  },
  {
    sourceTag: 'type:util',
    onlyDependOnLibsWithTags: ['type:domain', 'type:util'],
    bannedExternalImports: DOMAIN_BANNED,
  },
  { sourceTag: 'type:infra', onlyDependOnLibsWithTags: ['type:domain', 'type:util', 'type:infra'] },
  {
    sourceTag: 'type:testing',
    onlyDependOnLibsWithTags: ['type:domain', 'type:util', 'type:infra', 'type:testing'],
  },
  // Apps and the host reach the testing library only from their tests (testDepConstraints).
  { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:domain', 'type:util', 'type:infra'] },
  { sourceTag: 'type:tooling', onlyDependOnLibsWithTags: ['type:domain', 'type:util'] },
  {
    sourceTag: 'type:host',
    onlyDependOnLibsWithTags: ['type:domain', 'type:util', 'type:infra', 'type:app'],
  },
  // Projects made only of tests (tests/platform, tools/checks): the one kind that may import the
  // embedded host (type:host), to start the whole platform or check the deployment against it.
  {
    sourceTag: 'type:tests',
    onlyDependOnLibsWithTags: [
      'type:domain',
      'type:util',
      'type:infra',
      'type:testing',
      'type:app',
      'type:host',
    ],
  },
];

/** Tests may also use the testing library (fakes, service gates, database targets). */
const testDepConstraints = depConstraints.map((c) => ({
  ...c,
  onlyDependOnLibsWithTags: [...new Set([...c.onlyDependOnLibsWithTags, 'type:testing'])],
}));

/** What production code may not import: the test library and a library's `/testing` entry. */
const TESTING_IMPORTS = {
  group: ['@caravel/testing', '@caravel/testing/*', '@caravel/*/testing', '@caravel/*/testing/*'],
  message: "Production code does not import the test library or a library's /testing entry.",
};

/** The same inside a project: a relative import of its own `testing/` folder. */
const RELATIVE_TESTING_IMPORTS = {
  regex: '^\\.{1,2}/(?:.+/)?testing(?:/|$)',
  message: 'Production code does not import test support (a testing/ folder), even its own.',
};

const TESTING_PATTERNS = [TESTING_IMPORTS, RELATIVE_TESTING_IMPORTS];

/** Nest's raw handler decorators: services use @caravel/messaging's @ConsumeEvent/@ServeRequest. */
const RAW_HANDLER_PATTERNS = {
  name: '@nestjs/microservices',
  importNames: ['EventPattern', 'MessagePattern'],
  message:
    'Use @ConsumeEvent(Definition, { service }) or @ServeRequest(Definition) from @caravel/messaging: the durable name is derived and requests are parsed by the transport.',
};

/** Production sources: what the size and complexity guard rails apply to (tests are left out). */
const PRODUCTION = ['apps/*/src/**/*.ts', 'apps/*/src/**/*.tsx', 'libs/*/src/**/*.ts'];
const NOT_PRODUCTION = [
  '**/*.spec.ts',
  '**/*.medium-spec.ts',
  '**/*.e2e-spec.ts',
  '**/*.harness.ts',
  '**/src/testing/**',
  'libs/testing/**',
];

/** Lines of code, as STYLE.md counts a file's size: blank lines and comments do not count. */
const linesOfCode = (max) => ({ max, skipBlankLines: true, skipComments: true });

/**
 * Today's files over the 300-line aim (STYLE.md: aim for 100-300, over 500 is a smell to split),
 * each with the reason it is not split yet. The 500-line limit has no exceptions.
 */
const OVER_300_LINES = {
  'libs/db/src/repositories/finding.repository.ts':
    "347 lines: the reviewer's findings ledger, in progress; split by query family when it lands",
};

/**
 * Today's functions over complexity 20, each allowed its measured complexity (so it cannot grow)
 * with the reason it is not split yet. Counted the 'modified' way: a switch is one branch, so an
 * exhaustive switch over a code or a state is not penalised for each case it names.
 */
const COMPLEX_FUNCTIONS = {
  // The farm's loop: every optional setting is a conditional spread (35).
  'libs/swegen/src/farm/farm.ts': 35,
  // A shell tokenizer's state machine: one branch per quoting rule (readWord 24, step 21).
  'libs/middleware/src/shell-words.ts': 24,
  // One branch per Slack event shape (message, app_mention, edits, bots, threads) (23).
  'apps/ingress/src/events/slack-event.mapper.ts': 23,
  // Edit-script recovery of a dynamic-programming diff (22).
  'libs/agent/src/replay/patch-compare.ts': 22,
  // A unified diff hunk's line kinds and counts (22).
  'libs/findings/src/diff/unified-diff.ts': 22,
  // A markdown block parser: one branch per block kind (22).
  'libs/integrations/src/markup/markdown-blocks.ts': 22,
};

const boundaries = (constraints) => [
  'error',
  {
    enforceBuildableLibDependency: false,
    allow: [],
    depConstraints: constraints,
    banTransitiveDependencies: false,
  },
];

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/coverage/**',
      '**/generated/**',
      '.nx/**',
      'tmp/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { '@nx': nx },
    languageOptions: {
      // One program for the whole workspace (tsconfig.typecheck.json): each file is parsed and
      // checked once, however many projects import it.
      // The dashboard's web app (browser code) is a program of its own.
      parserOptions: {
        project: ['./tsconfig.typecheck.json', './apps/dashboard/src/web/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@nx/enforce-module-boundaries': boundaries(depConstraints),
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-extraneous-class': 'off',
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'Read configuration through a config schema (libs/config), not process.env.',
        },
      ],
    },
  },
  {
    // Size and complexity guard rails on production code. max-lines warns at 300 (CI runs with
    // --max-warnings 0, so a file over 300 fails it unless OVER_300_LINES lists it) and the
    // same rule, registered again as caravel/max-lines, errors at 500 everywhere.
    files: PRODUCTION,
    ignores: NOT_PRODUCTION,
    plugins: { caravel: { rules: { 'max-lines': builtinRules.get('max-lines') } } },
    rules: {
      'max-lines': ['warn', linesOfCode(300)],
      'caravel/max-lines': ['error', linesOfCode(500)],
      complexity: ['error', { max: 20, variant: 'modified' }],
    },
  },
  {
    // The dashboard's web app (React): the rules of hooks, and the React Compiler's checks.
    files: ['apps/dashboard/src/web/**/*.ts', 'apps/dashboard/src/web/**/*.tsx'],
    ...reactHooks.configs.flat.recommended,
    rules: { ...reactHooks.configs.flat.recommended.rules, 'react-hooks/exhaustive-deps': 'error' },
  },
  ...Object.keys(OVER_300_LINES).map((file) => ({ files: [file], rules: { 'max-lines': 'off' } })),
  ...Object.entries(COMPLEX_FUNCTIONS).map(([file, max]) => ({
    files: [file],
    rules: { complexity: ['error', { max, variant: 'modified' }] },
  })),
  {
    // Process entry points hand the environment to a config schema; nothing else reads it.
    files: [
      'apps/*/src/main.ts',
      'libs/testing/src/test-environment.ts',
      'e2e/support/processes.ts',
      'e2e/support/cli.ts',
    ],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    // Production code never loads the test library nor a library's `/testing` entry (its fakes,
    // fixtures and row factories), with no exception; test files are let back in just below.
    files: ['apps/*/src/**/*.ts', 'libs/*/src/**/*.ts'],
    ignores: ['libs/testing/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: TESTING_PATTERNS }] },
  },
  {
    // A service's handlers name the catalogue message, not a durable or a raw pattern: the
    // transport derives the durable (<service>-<message>) and parses requests.
    files: ['apps/*/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: TESTING_PATTERNS, paths: [RAW_HANDLER_PATTERNS] },
      ],
    },
  },
  {
    files: [
      '**/*.spec.ts',
      '**/*.medium-spec.ts',
      '**/*.e2e-spec.ts',
      '**/*.harness.ts',
      'libs/testing/**/*.ts',
      '**/src/testing/**/*.ts',
      'e2e/**/*.ts',
      'tests/**/*.ts',
    ],
    rules: {
      '@nx/enforce-module-boundaries': boundaries(testDepConstraints),
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    rules: {
      ...tseslint.configs.disableTypeChecked.rules,
      '@typescript-eslint/no-require-imports': 'off',
    },
    languageOptions: {
      globals: { ...globals.node },
    },
  },
  prettier,
);
