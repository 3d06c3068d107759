import { describe, expect, it } from '@jest/globals';
import { AppError } from '@caravel/errors';
import type { HostMirror } from '@caravel/sandbox';
import { strictMock } from '@caravel/testing/doubles';
import { recognizeWorkflowRefusal } from './workflow-refusal.js';

/** A push that fails as `git push` on the host does (hostGit's message), with `stderr`. */
const failingPush = (stderr: string) => () =>
  Promise.reject(new AppError('PRECONDITION_FAILED', `git push failed: ${stderr}`));

const mirrorTouching = (paths: string[]) =>
  strictMock<HostMirror>({ pathsOnlyIn: () => Promise.resolve(paths) }, 'mirror');

// GitHub's own words, as git prints them (from a real refusal of an App's push).
const GITHUB_STDERR = [
  'To https://github.com/acme/widgets',
  ' ! [remote rejected]   caravel/t1 -> caravel/t1 (refusing to allow a GitHub App to create or ' +
    'update workflow `.github/workflows/dlc.yml` without `workflows` permission)',
  "error: failed to push some refs to 'https://github.com/acme/widgets'",
].join('\n');

describe('recognizeWorkflowRefusal', () => {
  it("turns GitHub's refusal into workflow_permission, naming every workflow file the branch touches", async () => {
    let dropped = 0;
    const refused = await recognizeWorkflowRefusal(
      mirrorTouching(['src/a.ts', '.github/workflows/ci.yml', '.github/workflows/dlc.yml']),
      'refs/caravel/work/caravel/t1',
      failingPush(GITHUB_STDERR),
      () => (dropped += 1),
    ).catch((error: unknown) => error);

    expect(refused).toMatchObject({
      code: 'FORBIDDEN',
      retryable: false,
      details: {
        reason: 'workflow_permission',
        paths: ['.github/workflows/ci.yml', '.github/workflows/dlc.yml'],
      },
    });
    const message = (refused as Error).message;
    expect(message).toContain('(.github/workflows/ci.yml, .github/workflows/dlc.yml)');
    expect(message).toContain('"Workflows: Read and write"');
    expect(message).toContain("the changes are kept in the thread's sandbox");
    expect(message).not.toMatch(/remote rejected|github\.com|\n/);
    expect(dropped).toBe(1);
  });

  it('passes any other failure through as it is, and a push that works', async () => {
    const hook = new AppError(
      'PRECONDITION_FAILED',
      'git push failed: (pre-receive hook declined)',
    );
    const mirror = strictMock<HostMirror>({}, 'mirror');
    const never = () => {
      throw new Error('not a workflow refusal');
    };
    await expect(
      recognizeWorkflowRefusal(mirror, 'refs/x', () => Promise.reject(hook), never),
    ).rejects.toBe(hook);
    await expect(
      recognizeWorkflowRefusal(mirror, 'refs/x', () => Promise.resolve('c0ffee'), never),
    ).resolves.toBe('c0ffee');
  });
});
