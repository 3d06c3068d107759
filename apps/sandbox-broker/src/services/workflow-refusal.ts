import { AppError } from '@caravel/errors';
import type { HostMirror } from '@caravel/sandbox';

/**
 * GitHub's reason on a ref it refused because the push came from a GitHub App without the
 * `workflows` permission and one of its commits creates, changes or deletes a workflow file
 * (`! [remote rejected] <src> -> <dst> (refusing to allow a GitHub App to create or update
 * workflow `.github/workflows/ci.yml` without `workflows` permission)`); it names one file.
 */
const WORKFLOW_REFUSAL =
  /refusing to allow a GitHub App to create or update workflow `([^`\n]+)` without `workflows` permission/;

const WORKFLOWS = /^\.github\/workflows\//;

/** The error's message when it is GitHub's workflow refusal of a push, else null. */
function refusedWorkflow(error: unknown): string | null {
  const message = error instanceof Error ? error.message : String(error);
  return WORKFLOW_REFUSAL.exec(message)?.[1] ?? null;
}

/**
 * What a run is told when GitHub refused its push because Caravel's App may not change workflow
 * files (`FORBIDDEN`, reason `workflow_permission`, with the files): the person who asked and the
 * agent read the same words, which say what happened, that nothing left the sandbox, and the two
 * ways on. `paths` are the workflow files the branch's unpushed commits touch.
 */
export function workflowPermissionError(paths: readonly string[]): AppError {
  const shown = paths.slice(0, 5).join(', ') + (paths.length > 5 ? ', …' : '');
  return new AppError(
    'FORBIDDEN',
    `GitHub refused the push because it changes workflow files (${shown}) and Caravel's GitHub ` +
      'App may not change workflow files: it does not have the "Workflows" permission. Nothing ' +
      "was pushed; the changes are kept in the thread's sandbox. To publish them, an admin of " +
      'the GitHub App grants it "Workflows: Read and write" (the App\'s settings on GitHub, ' +
      'Permissions & events, then accept the new permission on the installation; see ' +
      '`caravel github-app manifest --workflows`), then publish again. Otherwise leave ' +
      '.github/workflows/ as it is: GitHub checks every commit pushed, so take the workflow ' +
      "changes out of the branch's unpushed commits, not only out of its files.",
    { details: { reason: 'workflow_permission', paths: paths.slice(0, 20) } },
  );
}

/**
 * Runs `push`; GitHub's refusal of a workflow change ({@link WORKFLOW_REFUSAL}) becomes
 * {@link workflowPermissionError} naming the workflow files the branch's unpushed commits touch
 * (`mirror`'s `workRef` against the remote's branches as last seen), after `refused` ran (the
 * broker drops its cached token: one minted after an admin's grant carries the permission).
 * Any other failure is thrown as it is.
 */
export async function recognizeWorkflowRefusal<T>(
  mirror: HostMirror,
  workRef: string,
  push: () => Promise<T>,
  refused: () => void,
): Promise<T> {
  try {
    return await push();
  } catch (error) {
    const named = refusedWorkflow(error);
    if (named === null) throw error;
    refused();
    const touched = (await mirror.pathsOnlyIn(workRef).catch(() => [])).filter((path) =>
      WORKFLOWS.test(path),
    );
    throw workflowPermissionError([...new Set([named, ...touched])].sort());
  }
}
