import { ESLint } from 'eslint';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const root = join(new URL('.', import.meta.url).pathname, '..', '..', '..');
const BOUNDARIES = '@nx/enforce-module-boundaries';
const RESTRICTED = 'no-restricted-imports';

/**
 * Lints a probe file placed inside a project (`<name>.ts`, or `<name>.spec.ts` with `suffix`),
 * then removes it; answers the messages of `rule`.
 */
async function lintErrors(
  projectSrc: string,
  code: string,
  rule = BOUNDARIES,
  suffix = '.ts',
): Promise<string[]> {
  const file = join(root, projectSrc, `boundary-probe-${process.pid}${suffix}`);
  await writeFile(file, code);
  try {
    // Only the rule asked, neither of which needs type information: the workspace's one
    // TypeScript program was built before this probe existed.
    const eslint = new ESLint({
      cwd: root,
      overrideConfig: {
        files: ['**/*.ts'],
        languageOptions: { parserOptions: { project: false, projectService: false } },
      },
      ruleFilter: ({ ruleId }) => ruleId === rule,
    });
    const [result] = await eslint.lintFiles([file]);
    // A probe that does not parse is a failure too, never an empty (passing) answer.
    return (result?.messages ?? [])
      .filter((m) => m.ruleId === rule || m.fatal)
      .map((m) => m.message);
  } finally {
    await rm(file, { force: true });
  }
}

const boundaryErrors = (projectSrc: string, code: string) => lintErrors(projectSrc, code);

describe('module boundaries (lint)', () => {
  it('rejects NATS in a domain library', async () => {
    const errors = await boundaryErrors(
      'libs/contracts/src',
      "import { connect } from '@nats-io/transport-node';\nexport const probe = connect;\n",
    );
    expect(errors.join('\n')).toMatch(
      /type:domain.*not allowed to import "@nats-io\/transport-node"/,
    );
  });

  it('rejects NestJS in a domain library', async () => {
    const errors = await boundaryErrors(
      'libs/errors/src',
      "import { Injectable } from '@nestjs/common';\nexport const probe = Injectable;\n",
    );
    expect(errors.join('\n')).toMatch(/not allowed to import "@nestjs\/common"/);
  });

  it('rejects one app importing another', async () => {
    const errors = await boundaryErrors(
      'apps/ingress/src',
      "import { DispatchModule } from '@caravel/dispatch';\nexport const probe = DispatchModule;\n",
    );
    expect(errors.join('\n')).toMatch(/type:app.*can only depend on libs tagged with/);
  });

  it('keeps the embedded host out of the libraries', async () => {
    // The host depends on every library now (findings came in with the reviewer), so nx, which
    // looks for cycles before tags, answers with the cycle; either refusal keeps the host out.
    const errors = await boundaryErrors(
      'libs/findings/src',
      "import { SERVICES } from '@caravel/cli';\nexport const probe = SERVICES;\n",
    );
    expect(errors.join('\n')).toMatch(
      /can only depend on libs tagged with|Circular dependency between "@caravel\/findings" and "@caravel\/cli"/,
    );
  });

  it('lets the platform scenarios start the embedded host', async () => {
    const errors = await boundaryErrors(
      'tests/platform/src',
      "import { startEmbedded } from '@caravel/cli';\nexport const probe = startEmbedded;\n",
    );
    expect(errors).toEqual([]);
  });

  it("rejects the testing library in an app's production file, not in its specs", async () => {
    const code =
      "import { serviceGate } from '@caravel/testing';\nexport const probe = serviceGate;\n";
    const errors = await boundaryErrors('apps/ingress/src', code);
    expect(errors.join('\n')).toMatch(/type:app.*can only depend on libs tagged with/);
    expect(await lintErrors('apps/ingress/src', code, BOUNDARIES, '.spec.ts')).toEqual([]);
  });

  it('lets an app import an infrastructure library', async () => {
    const errors = await boundaryErrors(
      'apps/ingress/src',
      "import { BUS } from '@caravel/platform';\nexport const probe = BUS;\n",
    );
    expect(errors).toEqual([]);
  });
});

describe('test code stays out of production code (lint)', () => {
  const TEST_CODE = /does not import the test library or a library's \/testing entry/;

  it.each([
    ['the test library', '@caravel/testing', 'serviceGate'],
    ['a test library sub-export', '@caravel/testing/doubles', 'strictMock'],
    ["a library's /testing entry", '@caravel/db/testing', 'factory'],
  ])('refuses %s in a production file', async (_what, entry, name) => {
    const code = `import { ${name} } from '${entry}';\nexport const probe = ${name};\n`;
    const errors = await lintErrors('apps/dispatch/src/services', code, RESTRICTED);
    expect(errors.join('\n')).toMatch(TEST_CODE);
  });

  it('refuses the test library in caravel fake-model too, which was the one exception', async () => {
    // Linted as that very file (its text with the old import), not as a probe beside it.
    const file = join(root, 'apps/cli/src/commands/fake-model.command.ts');
    const code =
      "import { startFakeOpenAi } from '@caravel/testing/fake-llm';\n" +
      'export const probe = startFakeOpenAi;\n';
    const eslint = new ESLint({
      cwd: root,
      overrideConfig: {
        files: ['**/*.ts'],
        languageOptions: { parserOptions: { project: false, projectService: false } },
      },
      ruleFilter: ({ ruleId }) => ruleId === RESTRICTED,
    });
    const [result] = await eslint.lintText(code, { filePath: file });
    const errors = (result?.messages ?? []).map((m) => m.message);
    expect(errors.join('\n')).toMatch(TEST_CODE);
  });

  it("refuses a relative import of its own project's testing/ folder in a production file", async () => {
    const code =
      "import { seedRemote } from './testing/index.js';\nexport const probe = seedRemote;\n";
    const errors = await lintErrors('libs/sandbox/src', code, RESTRICTED);
    expect(errors.join('\n')).toMatch(/does not import test support \(a testing\/ folder\)/);
    const spec = await lintErrors('libs/sandbox/src', code, RESTRICTED, '.spec.ts');
    expect(spec).toEqual([]);
  });

  it("lets a spec import a library's /testing entry and the test library", async () => {
    const code =
      "import { factory } from '@caravel/db/testing';\n" +
      "import { strictMock } from '@caravel/testing/doubles';\n" +
      'export const probe = [factory, strictMock];\n';
    const errors = await lintErrors('apps/dispatch/src/services', code, RESTRICTED, '.spec.ts');
    expect(errors).toEqual([]);
  });
});
