import { githubThreadId } from '@caravel/contracts';
import { RunRepository, type Database, type RunRow } from '@caravel/db';
import { seedRemote } from '@caravel/sandbox/testing';
import { FakeGitHub, githubAppEnv, githubAppKeys } from '@caravel/testing';
import { expect } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postGithubWebhook } from './github-webhook.js';
import { startPair, type PlatformPair } from './platform-pairs.js';
import { scriptedModel, until, type ScriptedResponse } from './scenario-run.js';

/** The repository every issue-notes platform serves, on its fake GitHub. */
export const NOTES_REPO = 'acme/widgets';
const SECRET = 'issue-notes-secret';
const APP_ID = '4343';

/** Git on the host, over a fake GitHub's bare repository or a scratch one. */
export const hostGit = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'safe.directory=*', ...args], { cwd, encoding: 'utf8' }).trim();

/**
 * A mention of Caravel in comment `commentId` on issue `issue` of acme/widgets, as GitHub sends
 * it (octocat, a member, writes it).
 */
export function issueMention(issue: number, commentId: number, body = '@caravel add a note') {
  return {
    action: 'created',
    issue: { id: 7_000_000 + issue, number: issue, title: 'Notes', body: 'We need notes.' },
    comment: {
      id: commentId,
      body,
      user: { login: 'octocat', type: 'User' },
      author_association: 'MEMBER',
    },
    repository: { name: 'widgets', private: true, owner: { login: 'acme', type: 'Organization' } },
    sender: { login: 'octocat', type: 'User' },
  };
}

/** The shell command of a {@link noteModel} run: adds the next note. */
export const ADD_NOTE = 'n=$(ls NOTE-*.md 2>/dev/null | wc -l); echo note > NOTE-$((n+1)).md';

/**
 * A scripted model whose every run adds the next note (NOTE-1.md in a sandbox without notes,
 * NOTE-2.md where NOTE-1.md is; or runs `edit` instead), publishes it with `commit_and_open_pr`,
 * takes the steps `afterPublish`, then submits whatever the tool answered, as a model that
 * misreads a failure would.
 */
export function noteModel(
  dir: string,
  afterPublish: ScriptedResponse[] = [],
  edit = ADD_NOTE,
): Promise<string> {
  return scriptedModel(dir, 'notes', [
    { tool_calls: [{ name: 'execute', args: { command: edit } }] },
    {
      tool_calls: [
        {
          name: 'commit_and_open_pr',
          args: { commit_message: 'Add a note', title: 'Add a note', body: 'Adds a note.' },
        },
      ],
    },
    ...afterPublish,
    { tool_calls: [{ name: 'submit', args: {} }] },
  ]);
}

/**
 * Mentions Caravel in comment `commentId` on issue `issue` of acme/widgets (trusted octocat),
 * through the webhook of the ingress at `ingressUrl` signed with `secret`, and waits for the run it
 * starts in the issue's thread to end: one not in `seen`, then added to it.
 */
export async function mentionAndWait(
  ingressUrl: string,
  secret: string,
  database: Database,
  mention: { issue: number; commentId: number; seen: Set<string> },
): Promise<RunRow> {
  const { issue, commentId, seen } = mention;
  const threadId = githubThreadId({ owner: 'acme', repo: 'widgets', number: issue });
  const payload = issueMention(issue, commentId);
  const answer = await postGithubWebhook(ingressUrl, secret, 'issue_comment', payload);
  expect(await answer.json()).toMatchObject({ accepted: true, threadId });
  const runs = new RunRepository(database.db);
  const run = await until(async () => {
    const all = await runs.listByThread(threadId);
    return all.find((r) => r.finishedAt && !seen.has(r.id));
  }, `a finished run on ${threadId}`);
  seen.add(run.id);
  return run;
}

/** An embedded platform on acme/widgets behind a fake GitHub App, its runs the notes model's. */
export interface IssueNotesPlatform {
  dir: string;
  github: FakeGitHub;
  pair: PlatformPair;
  /** The fake GitHub's bare repository of acme/widgets. */
  bare: string;
  /**
   * Mentions Caravel on issue `issue` (trusted octocat) and waits for the run it starts in the
   * issue's thread to end: one not in `seen`, then added to it.
   */
  mentionRun(issue: number, commentId: number, seen: Set<string>): Promise<RunRow>;
  close(): Promise<void>;
}

/** Starts an {@link IssueNotesPlatform}; `afterPublish` and `edit` as {@link noteModel} takes them. */
export async function startIssueNotesPlatform(
  name: string,
  afterPublish: ScriptedResponse[] = [],
  edit = ADD_NOTE,
): Promise<IssueNotesPlatform> {
  const { privateKey, publicKey } = githubAppKeys();
  const dir = await mkdtemp(join(tmpdir(), `caravel-${name}-`));
  execFileSync('chmod', ['755', dir]);
  const github = new FakeGitHub({ root: join(dir, 'remotes'), app: { id: APP_ID, publicKey } });
  github.addRepository(NOTES_REPO);
  const bare = await seedRemote(join(dir, 'remotes'), NOTES_REPO, '# widgets\n');
  const model = await noteModel(dir, afterPublish, edit);
  const origin = await github.start();
  const pair = await startPair('embedded', {
    GITHUB_WEBHOOK_SECRET: SECRET,
    ...githubAppEnv(APP_ID, privateKey, origin),
    TRUSTED_AUTHORS: 'github:octocat',
    CARAVEL_MODEL: model,
  });
  return {
    dir,
    github,
    pair,
    bare,
    mentionRun: (issue, commentId, seen) =>
      mentionAndWait(pair.host.url, SECRET, pair.database, { issue, commentId, seen }),
    async close() {
      await pair.close();
      await github.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
