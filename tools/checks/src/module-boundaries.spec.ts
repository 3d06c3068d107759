import { ESLint } from 'eslint';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const root = join(new URL('.', import.meta.url).pathname, '..', '..', '..');
const BOUNDARIES = '@nx/enforce-module-boundaries';

/** Lints a probe file placed inside a project, then removes it. */
async function boundaryErrors(projectSrc: string, code: string): Promise<string[]> {
  const file = join(root, projectSrc, `boundary-probe-${process.pid}.ts`);
  await writeFile(file, code);
  try {
    // Only the boundary rule, which needs no type information: the workspace's one TypeScript
    // program was built before this probe existed.
    const eslint = new ESLint({
      cwd: root,
      overrideConfig: {
        files: ['**/*.ts'],
        languageOptions: { parserOptions: { project: false, projectService: false } },
      },
      ruleFilter: ({ ruleId }) => ruleId === BOUNDARIES,
    });
    const [result] = await eslint.lintFiles([file]);
    // A probe that does not parse is a failure too, never an empty (passing) answer.
    return (result?.messages ?? [])
      .filter((m) => m.ruleId === BOUNDARIES || m.fatal)
      .map((m) => m.message);
  } finally {
    await rm(file, { force: true });
  }
}

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

  it('lets an app import an infrastructure library', async () => {
    const errors = await boundaryErrors(
      'apps/ingress/src',
      "import { BUS } from '@caravel/platform';\nexport const probe = BUS;\n",
    );
    expect(errors).toEqual([]);
  });
});
