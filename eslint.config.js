// ESLint flat config: type-aware TypeScript rules, Prettier compatibility, and Nx module boundaries.
import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
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
  {
    sourceTag: 'type:app',
    onlyDependOnLibsWithTags: ['type:domain', 'type:util', 'type:infra', 'type:testing'],
  },
  { sourceTag: 'type:tooling', onlyDependOnLibsWithTags: ['type:domain', 'type:util'] },
  {
    sourceTag: 'type:host',
    onlyDependOnLibsWithTags: [
      'type:domain',
      'type:util',
      'type:infra',
      'type:testing',
      'type:app',
    ],
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
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    languageOptions: {
      // One program for the whole workspace (tsconfig.typecheck.json): each file is parsed and
      // checked once, however many projects import it.
      parserOptions: { project: './tsconfig.typecheck.json', tsconfigRootDir: import.meta.dirname },
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
    // fixtures and row factories). The one exception is `caravel fake-model`, which ships its fake
    // OpenAI-compatible server (no other test machinery) for trying Caravel without a key; test
    // files are let back in just below.
    files: ['apps/*/src/**/*.ts', 'libs/*/src/**/*.ts'],
    ignores: ['libs/testing/**', 'apps/cli/src/commands/fake-model.command.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '@caravel/testing',
                '@caravel/testing/*',
                '@caravel/*/testing',
                '@caravel/*/testing/*',
              ],
              message:
                "Production code does not import the test library or a library's /testing entry.",
            },
          ],
        },
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
