import { githubThreadId, threadBranch } from '@caravel/contracts';
import { DEFAULT_INSTALLATION_PERMISSIONS } from '@caravel/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  hostGit as git,
  NOTES_REPO as REPO,
  startIssueNotesPlatform,
  type IssueNotesPlatform,
} from './harness/issue-notes.js';
import { until } from './harness/scenario-run.js';

// "Fix our CI": a run changes .github/workflows/ci.yml, and GitHub refuses the push of Caravel's
// App, which has no `workflows` permission by default (the fake refuses it as GitHub does). The
// run ends failed, its finish record saying why (unpublished: workflow_permission and the file,
// from the broker's coded refusal), and the thread is told in plain words why, which file, that
// the changes wait in unpushed commits the agent must rewrite to leave the workflow out, and the
// two ways on, never git's raw words. Once an admin grants the App the permission, the next
// mention publishes the kept work with a freshly minted token.

const ISSUE = 31;
const EDIT_CI = 'mkdir -p .github/workflows && echo "on: push" >> .github/workflows/ci.yml';

describe('a run that changes a workflow [embedded bus + PGlite]', () => {
  let platform: IssueNotesPlatform;
  const threadId = githubThreadId({ owner: 'acme', repo: 'widgets', number: ISSUE });
  const branch = threadBranch(threadId);

  const issueComments = (): string[] =>
    (platform.github.state.issueComments.get(`${REPO}#${ISSUE}`) ?? []).map((c) => c.body);
  const pullsOfBranch = () =>
    platform.github.state.pulls.get(REPO)?.filter((p) => p.head === branch) ?? [];

  beforeAll(async () => {
    platform = await startIssueNotesPlatform('workflow-permission', [], EDIT_CI);
  }, 180_000);

  afterAll(async () => {
    await platform?.close();
  });

  it('says GitHub refused the workflow change and how to go on, then publishes it once the App may change workflows', async () => {
    const seen = new Set<string>();

    const refused = await platform.mentionRun(ISSUE, 9_300_001, seen);

    expect(refused).toMatchObject({ status: 'failed', exitStatus: 'submitted (exit_unpublished)' });
    // The agent's tool said it in the same words (the summary is its failed publish).
    expect(refused.summary).toMatch(
      /^The changes are not in a pull request: their last publish failed: GitHub refused the push because it changes workflow files \(\.github\/workflows\/ci\.yml\)/,
    );
    // Why, as the runner took it from the broker's coded refusal: what dispatch's reply reads.
    expect(refused.conclusion).toMatchObject({
      unpublished: { reason: 'workflow_permission', files: ['.github/workflows/ci.yml'] },
    });
    expect(pullsOfBranch()).toEqual([]);
    expect(() => git(platform.bare, 'rev-parse', '--verify', '--quiet', branch)).toThrow();
    const reply = await until(() => {
      const found = issueComments().find((body) => body.includes('GitHub refused'));
      return Promise.resolve(found);
    }, 'the failure comment');
    expect(reply).toMatch(
      /^Caravel wasn't able to finish this task: GitHub refused to take its changes, because they change workflow files/,
    );
    expect(reply).toContain(
      "The changes it made are kept in the thread's sandbox, in commits that were not pushed.",
    );
    expect(reply).toContain('Workflow files changed: `.github/workflows/ci.yml`');
    expect(reply).toContain('"Workflows: Read and write"');
    expect(reply).toContain('caravel github-app manifest --workflows');
    expect(reply).toContain('without touching `.github/workflows/`');
    expect(reply).toContain('The agent must then rewrite its unpushed commits');
    expect(reply).toContain('changing the files back in a new commit is not enough');
    expect(reply).not.toMatch(/remote rejected|FORBIDDEN|x-access-token|\bat \w+ \(/);

    // An admin grants the App "Workflows: Read and write"; the next mention publishes.
    platform.github.grant({ ...DEFAULT_INSTALLATION_PERMISSIONS, workflows: 'write' });
    const published = await platform.mentionRun(ISSUE, 9_300_002, seen);

    expect(published).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
    expect(pullsOfBranch()).toEqual([expect.objectContaining({ state: 'open', draft: true })]);
    expect(git(platform.bare, 'diff', '--name-only', `main...${branch}`)).toBe(
      '.github/workflows/ci.yml',
    );
    expect(issueComments().filter((body) => body.includes('GitHub refused'))).toHaveLength(1);
  }, 300_000);
});
