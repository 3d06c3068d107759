// Shared Jest settings: ESM mode, @swc/jest, workspace libraries resolved to their sources.
const path = require('node:path');

const root = __dirname;

const swc = [
  '@swc/jest',
  {
    module: { type: 'es6' },
    jsc: {
      target: 'es2022',
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      keepClassNames: true,
    },
  },
];

const caravelProjects = {
  config: 'libs/config',
  contracts: 'libs/contracts',
  db: 'libs/db',
  errors: 'libs/errors',
  messaging: 'libs/messaging',
  logging: 'libs/logging',
  metrics: 'libs/metrics',
  platform: 'libs/platform',
  testing: 'libs/testing',
  'fake-llm': 'libs/fake-llm',
  agent: 'libs/agent',
  middleware: 'libs/middleware',
  tools: 'libs/tools',
  evals: 'libs/evals',
  findings: 'libs/findings',
  sandbox: 'libs/sandbox',
  integrations: 'libs/integrations',
  swegen: 'libs/swegen',
  ingress: 'apps/ingress',
  dispatch: 'apps/dispatch',
  'agent-runner': 'apps/agent-runner',
  reviewer: 'apps/reviewer',
  analyzer: 'apps/analyzer',
  'sandbox-broker': 'apps/sandbox-broker',
  dashboard: 'apps/dashboard',
  cli: 'apps/cli',
};

const moduleNameMapper = { '^(\\.{1,2}/.*)\\.js$': '$1' };
for (const [name, dir] of Object.entries(caravelProjects)) {
  moduleNameMapper[`^@caravel/${name}$`] = path.join(root, dir, 'src/index.ts');
  // Sub-exports (`@caravel/testing/doubles`, `@caravel/<lib>/testing`) resolve to the sources their
  // package.json names under the `@caravel/source` condition, as tsconfig.base.json's paths do.
  const { exports = {} } = require(path.join(root, dir, 'package.json'));
  for (const [entry, targets] of Object.entries(exports)) {
    if (entry === '.' || !targets['@caravel/source']) continue;
    moduleNameMapper[`^@caravel/${name}/${entry.slice(2)}$`] = path.join(
      root,
      dir,
      targets['@caravel/source'],
    );
  }
}

/** Builds a project's Jest config; `kind` picks unit (`*.spec.ts`) or medium (`*.medium-spec.ts`). */
function jestConfig(projectDir, kind = 'unit') {
  const pattern = kind === 'medium' ? '**/*.medium-spec.ts' : '**/*.spec.ts';
  return {
    displayName: `${path.basename(projectDir)}${kind === 'medium' ? ':medium' : ''}`,
    rootDir: projectDir,
    testEnvironment: 'node',
    testMatch: [`<rootDir>/src/${pattern}`, `<rootDir>/e2e/${pattern}`],
    extensionsToTreatAsEsm: ['.ts'],
    transform: { '^.+\\.ts$': swc },
    moduleNameMapper,
    testTimeout: kind === 'medium' ? 60_000 : 10_000,
    passWithNoTests: true,
  };
}

module.exports = { jestConfig, swc, moduleNameMapper, caravelProjects, root };
