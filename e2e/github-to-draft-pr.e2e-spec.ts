import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitHubWorld } from './support/github-world.js';
import { platformShapes, withLogs, type Platform } from './support/platform.js';
import { requestPathFiles, stepsNotRun } from './support/request-path-coverage.js';
import { eventually, type RunView } from './support/walking-skeleton.js';

const SECRET = 'e2e-github-secret';

/** GitHub's own `issue_comment` example, its comment now mentioning the bot. */
function mentionPayload(text: string): {
  body: string;
  owner: string;
  name: string;
  issue: number;
} {
  const examples = createRequire(import.meta.url)(
    '@octokit/webhooks-examples/api.github.com/index.json',
  ) as { name: string; examples: Record<string, unknown>[] }[];
  const example = examples
    .find((event) => event.name === 'issue_comment')
    ?.examples.find((payload) => payload['action'] === 'created');
  if (!example) throw new Error('no issue_comment.created example');
  const payload = structuredClone(example) as {
    comment: { body: string; id: number };
    repository: { name: string; owner: { login: string } };
    issue: { number: number };
  };
  payload.comment.body = text;
  payload.comment.id = Number.parseInt(randomBytes(3).toString('hex'), 16);
  return {
    body: JSON.stringify(payload),
    owner: payload.repository.owner.login,
    name: payload.repository.name,
    issue: payload.issue.number,
  };
}

/** The scripted agent: edit a file, commit and open the draft PR, answer, submit. */
const SCRIPT = `responses:
  - content: Fixing it.
    tool_calls:
      - name: execute
        args: { command: 'echo "fixed by caravel" > FIX.md' }
  - content: Publishing.
    tool_calls:
      - name: commit_and_open_pr
        args: { commit_message: 'Add FIX.md', title: 'Add FIX.md', body: 'Fixes the issue.' }
  - content: Answering.
    tool_calls:
      - name: reply_to_user
        args: { text: 'Opened a draft PR with the fix.' }
  - content: Done.
    tool_calls:
      - name: submit
        args: {}
`;

/** The example's repository on a fake GitHub App, and the mention delivered as GitHub signs it. */
class GitHubMention {
  readonly repository: string;
  readonly issue: number;
  readonly world: GitHubWorld;

  constructor(dir: string) {
    const { owner, name, issue } = mentionPayload('');
    this.repository = `${owner}/${name}`;
    this.issue = issue;
    this.world = new GitHubWorld(dir, [this.repository]);
  }

  /** The platform's settings: the App, the webhook secret, the example's owner trusted. */
  async start(dir: string): Promise<Record<string, string>> {
    const script = join(dir, 'fix.script.yaml');
    await writeFile(script, SCRIPT);
    return {
      ...(await this.world.start()),
      GITHUB_WEBHOOK_SECRET: SECRET,
      TRUSTED_AUTHORS: `github:${this.repository.split('/')[0] ?? ''}`,
      CARAVEL_MODEL: `scripted:${script}`,
    };
  }

  /** Signs and delivers a mention; resolves with the thread ingress derived. */
  async deliver(ingressUrl: string, text: string): Promise<string> {
    const { body } = mentionPayload(text);
    const response = await fetch(`${ingressUrl}/webhooks/github`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'issue_comment',
        'x-github-delivery': randomUUID(),
        'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
      },
      body,
    });
    const answer = (await response.json()) as { accepted: boolean; threadId: string };
    expect(answer).toMatchObject({ accepted: true });
    return answer.threadId;
  }

  /**
   * The mention became a pushed branch, a draft PR from it, a reply on the issue, and a run the
   * dashboard API at `apiUrl` lists as submitted.
   */
  async expectDraftPrAndReply(threadId: string, apiUrl: string): Promise<void> {
    const pull = await this.world.draftPullOf(this.repository, threadId, {
      path: 'FIX.md',
      content: 'fixed by caravel',
    });
    expect(pull.title).toBe('Add FIX.md');
    const key = this.repository.toLowerCase();
    const reply = await eventually(() =>
      Promise.resolve(
        this.world.github.state.issueComments
          .get(`${key}#${this.issue}`)
          ?.find((c) => c.body.includes('Opened a draft PR with the fix.')),
      ),
    );
    expect(reply.body).toContain('caravel-idempotency-key');
    this.world.expectOnlyMintedTokens();
    const run = await eventually(async () => {
      const response = await fetch(`${apiUrl}/api/threads/${threadId}`);
      if (response.status !== 200) return undefined;
      const detail = (await response.json()) as { runs: RunView[] };
      return detail.runs.find((r) => ['completed', 'failed', 'interrupted'].includes(r.status));
    });
    expect(run).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
  }
}

for (const { mode, processes, start, suite } of await platformShapes()) {
  suite(`a signed GitHub mention becomes a draft PR and a reply (${mode})`, () => {
    let dir: string;
    let mention: GitHubMention;
    let platform: Platform;
    let closing: Promise<void> | undefined;
    const close = (): Promise<void> => (closing ??= platform?.close() ?? Promise.resolve());
    // As processes, each service writes V8's coverage when it exits: the request's path, run.
    const coverage = (): string => join(dir, 'coverage');

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'caravel-e2e-gh-pr-'));
      await chmod(dir, 0o755);
      mention = new GitHubMention(dir);
      const env = await mention.start(dir);
      platform = await start(dir, processes ? { ...env, NODE_V8_COVERAGE: coverage() } : env);
    });

    afterAll(async () => {
      await close();
      await mention.world.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('edits the repository in the sandbox, pushes through the proxy, opens a draft PR and replies', async () => {
      const threadId = await mention.deliver(platform.ingressUrl, '@caravel please add FIX.md');
      await withLogs(platform, () => mention.expectDraftPrAndReply(threadId, platform.apiUrl));
    });

    if (processes)
      it('ran request-time code in every file docs/request-path.md lists as a step', async () => {
        await close();
        const files = await requestPathFiles();
        expect(files.length).toBeGreaterThanOrEqual(10);
        expect(await stepsNotRun(coverage(), files)).toEqual([]);
      });
  });
}
