import type { RunConclusion } from '@caravel/agent';
import { StartRunV1, type EnvelopeOf } from '@caravel/contracts';
import type { RunRow } from '@caravel/db';
import { factory } from '@caravel/db/testing';
import type { GitHubCodeHost, GitHubScmReader } from '@caravel/integrations';
import type { Lease } from '@caravel/messaging';
import { brokerStopping, sandboxUnreachable, type ToolSandboxAdapter } from '@caravel/sandbox';
import { strictMock } from '@caravel/testing/doubles';
import { AppError } from '@caravel/errors';
import type { PullRequestDraft, ReplyChannel } from '@caravel/tools';
import type {
  AgentFactoryService,
  AgentRunInputs,
  BuiltAgent,
} from '../agent/agent-factory.service.js';
import { runInstructionFiles, type InstructionFiles } from '../agent/agents-file-finder.js';
import type { LiveOutput } from '../agent/live-output.js';
import type { SandboxLossNotice } from '../agent/sandbox-loss.notice.js';
import type { StepRecorder } from '../agent/step-recorder.js';
import type { RunIntegrationsService } from '../integrations/run-integrations.service.js';
import { MERGED_PULL } from '../testing/branch-pulls.js';
import { RunWorkspaces, type RunWorkspace } from '../sandbox/run-workspaces.js';
import type { ThreadSandboxService, ThreadWorkspace } from '../sandbox/thread-sandbox.service.js';
import { GitScm } from '../scm/git.scm.js';
import type { SandboxBrokerClient } from '@caravel/sandbox';
import type { AttemptsRunContext, AttemptsService } from './attempts.service.js';
import type { LeaseKeeper, RunClaim } from './lease-keeper.js';
import type { RunEventPublisher, RunEvents } from './run-events.js';
import type { RunFollowUps } from './run-follow-ups.service.js';
import type { RunSubject } from '../scm/run-subject.js';
import type { RunSubjectService } from '../scm/run-subject.service.js';
import { ForkPullRequestScm } from '../scm/fork-pull-request.scm.js';
import { PullRequestScm } from '../scm/pull-request.scm.js';
import { RunExecutorService } from './run-executor.service.js';

const BASE = 'b'.repeat(40);
const repository = { owner: 'acme', name: 'widgets' };

function startCommand(options: Record<string, unknown> = {}): EnvelopeOf<typeof StartRunV1> {
  const fixture = StartRunV1.fixture();
  return { ...fixture, data: { ...fixture.data, repository, options } };
}

/**
 * The executor over strict doubles of everything it touches. `log` says, in order, what happened
 * to the lease, the sandbox and the run's events; the doubles answer as a healthy platform would
 * unless a test stubs them otherwise.
 */
function executorWith(claim: RunClaim, subject: RunSubject = { kind: 'none' }) {
  const log: string[] = [];
  const acquired: Parameters<ThreadSandboxService['forRun']>[] = [];
  const streamed: unknown[] = [];
  const inputs: AgentRunInputs[] = [];
  const interrupt = new AbortController();
  const pushes: string[] = [];
  const broker = strictMock<SandboxBrokerClient>(
    {
      push: (request) =>
        Promise.resolve(void pushes.push(request.commitMessage ?? '')).then(() => ({
          pushed: true,
          origin: '/remotes/acme/widgets.git',
          commitSha: 'c'.repeat(40),
        })),
    },
    'broker',
  );
  const workspace = strictMock<RunWorkspace>(
    {
      startNote: undefined,
      outcome: 'reused',
      threadId: 't',
      repository,
      origin: '/remotes/acme/widgets.git',
      broker,
      branch: 'caravel/t',
      baseCommit: BASE,
      sandbox: strictMock<ThreadWorkspace['sandbox']>({}, 'sandbox'),
      tools: strictMock<ToolSandboxAdapter>({ diff: () => Promise.resolve('+fixed') }, 'tools'),
    },
    'workspace',
  );
  const keeper = strictMock<LeaseKeeper>(
    {
      claim: () => Promise.resolve(claim),
      hold: async (_lease, _heartbeat, work) => {
        log.push('lease held');
        try {
          return await work();
        } finally {
          log.push('lease released');
        }
      },
    },
    'keeper',
  );
  const recorder = strictMock<StepRecorder>(
    {
      toolsCalled: [],
      ignore: () => undefined,
      record: () => Promise.resolve(),
      flush: () => Promise.resolve(),
    },
    'recorder',
  );
  const live = strictMock<LiveOutput>(
    { push: () => undefined, close: () => Promise.resolve(void log.push('live output closed')) },
    'live',
  );
  const runEvents = strictMock<RunEvents>(
    {
      announce: (details) => Promise.resolve(void log.push(`started ${JSON.stringify(details)}`)),
      finish: (conclusion: RunConclusion) =>
        Promise.resolve(
          void log.push(`finished ${conclusion.exitStatus}: ${conclusion.observation}`),
        ),
      steps: () => recorder,
      liveOutput: () => live,
    },
    'runEvents',
  );
  const events = strictMock<RunEventPublisher>({ forRun: () => runEvents }, 'events');
  const sandboxes = strictMock<ThreadSandboxService>(
    {
      forRun: (...args) => {
        acquired.push(args);
        return Promise.resolve(void log.push('sandbox acquired')).then(() => workspace);
      },
      release: () => Promise.resolve(void log.push('sandbox released')),
    },
    'sandboxes',
  );
  const agent = strictMock<BuiltAgent['agent']>(
    {
      graph: strictMock<BuiltAgent['agent']['graph']>(
        { getState: () => Promise.resolve({ values: { messages: [] } }) as never },
        'graph',
      ),
      stream: ((input: unknown) => {
        streamed.push(input);
        log.push('agent streamed');
        return Promise.resolve((async function* () {})());
      }) as never,
    },
    'agent',
  );
  const factory = strictMock<AgentFactoryService>(
    {
      build: (run) => {
        inputs.push(run);
        return Promise.resolve({
          agent,
          model: { provider: 'scripted', modelId: 'fix' } as BuiltAgent['model'],
          systemPrompt: 'You are Caravel.',
          recursionLimit: 25,
          openingMessage: (prompt: string) => prompt,
        });
      },
    },
    'factory',
  );
  const replied: string[] = [];
  const channel = strictMock<ReplyChannel>(
    { reply: (text: string) => Promise.resolve({ messageId: String(replied.push(text)) }) },
    'channel',
  );
  const integrations = strictMock<RunIntegrationsService>(
    {
      replyChannel: () => channel,
      pullRequestHost: () => null,
      scmReader: () => null,
      // As the service does: through the run's GitHub reader when there is one.
      instructionFiles: (run, base, sandbox): InstructionFiles =>
        runInstructionFiles(integrations.scmReader(run), base, sandbox, () => undefined),
      channelPorts: () => ({}),
      assistantStatus: () => ({}),
    },
    'integrations',
  );
  const followUps = strictMock<RunFollowUps>(
    {
      watch: () =>
        Promise.resolve({
          signal: interrupt.signal,
          stop: () => Promise.resolve(void log.push('watch stopped')),
        }),
      queue: () => ({ queue: { drain: () => Promise.resolve([]) }, isTrustedAuthor: () => false }),
      settle: async (_threadId, runId, held) =>
        void log.push(`follow-ups settled for ${runId}: ${(await held()).length} held`),
    },
    'followUps',
  );
  const attempts = strictMock<AttemptsService>({}, 'attempts');
  const sandboxLoss = strictMock<SandboxLossNotice>(
    { post: (_channel, _run, text) => Promise.resolve(void log.push(`told: ${text}`)) },
    'sandboxLoss',
  );
  const subjects = strictMock<RunSubjectService>(
    { resolve: () => Promise.resolve(subject) },
    'subjects',
  );
  const executor = new RunExecutorService(
    keeper,
    events,
    new RunWorkspaces(sandboxes, integrations),
    factory,
    integrations,
    followUps,
    attempts,
    sandboxLoss,
    subjects,
  );
  const doubles = { keeper, events, sandboxes, factory, integrations, attempts, sandboxLoss };
  const run = { executor, log, inputs, interrupt, agent, acquired, streamed, broker, pushes };
  return { ...run, channel, replied, ...doubles };
}

const heartbeat = () => Promise.resolve();
const lease: Lease = {
  key: 'thread.t',
  holder: 'runner-b/run/r',
  revision: 1,
  expiresAt: new Date(),
};

describe('RunExecutorService', () => {
  it('runs a claimed run in the thread sandbox, announces it, and says how it ended, all under the lease', async () => {
    const { executor, log, inputs, replied } = executorWith({ kind: 'run', lease });

    await executor.execute(startCommand(), heartbeat);

    expect(log).toEqual([
      'lease held',
      'sandbox acquired',
      `started {"repository":{"owner":"acme","name":"widgets"},"branch":"caravel/t","baseCommit":"${BASE}","model":"scripted:fix","systemPrompt":"You are Caravel.","prompt":"fix the flaky test in parser.spec.ts"}`,
      'agent streamed',
      // What the run claimed is settled before its end is announced (dispatch then looks).
      `follow-ups settled for ${StartRunV1.fixture().data.runId}: 0 held`,
      'live output closed',
      'watch stopped',
      'finished submitted: +fixed',
      'sandbox released',
      'lease released',
    ]);
    const { threadId, runId } = StartRunV1.fixture().data;
    expect(inputs).toHaveLength(1);
    expect(inputs[0]).toMatchObject({ threadId, runId, requestedBy: 'synthetic:octocat' });
    // The agent's replies go to the run's channel (with its todo list once it keeps one).
    await inputs[0]?.channel.reply('On it.');
    expect(replied).toEqual(['On it.']);
  });

  it('publishes through GitHub when the run has a pull-request host, through a pushed branch otherwise', async () => {
    const plain = executorWith({ kind: 'run', lease });
    await plain.executor.execute(startCommand(), heartbeat);
    const github = executorWith({ kind: 'run', lease });
    const drafts: PullRequestDraft[] = [];
    github.integrations.pullRequestHost = () =>
      strictMock<GitHubCodeHost>(
        {
          branchPullRequest: () => Promise.resolve(null),
          openPullRequest: (draft: PullRequestDraft) =>
            Promise.resolve(void drafts.push(draft)).then(() => ({
              number: 3,
              url: 'https://github.example/acme/widgets/pull/3',
              draft: true,
            })),
        },
        'host',
      );
    await github.executor.execute(startCommand(), heartbeat);
    const draft = { branch: 'caravel/t', title: 'Fix', body: 'Fixed it.' };

    // A plain remote: the pushed branch stands for the pull request.
    expect(await plain.inputs[0]?.scm.openPullRequest(draft)).toMatchObject({ standIn: 'branch' });
    // GitHub: a pull request, its body saying who asked and where.
    expect(await github.inputs[0]?.scm.openPullRequest(draft)).toMatchObject({ number: 3 });
    expect(drafts).toEqual([
      expect.objectContaining({
        body: expect.stringMatching(
          /^Fixed it\.\n\n<!-- caravel:provenance -->\n---\nRequested by `octocat` · Caravel run `0b8f3a52`$/,
        ),
      }),
    ]);
  });

  it("starts over at the base when the thread branch's pull request was merged, and says so", async () => {
    const { executor, acquired, streamed, integrations } = executorWith({ kind: 'run', lease });
    const merged = MERGED_PULL;
    integrations.pullRequestHost = () =>
      strictMock<GitHubCodeHost>({ branchPullRequest: () => Promise.resolve(merged) }, 'host');
    await executor.execute(startCommand(), heartbeat);

    expect(acquired[0]?.[2]).toMatchObject({ atBase: true });
    // The double's sandbox is not at #4's head: it holds more, so it is kept and the run told.
    expect(acquired).toHaveLength(1);
    expect(JSON.stringify(streamed[0])).toContain(
      'Your earlier pull request #4 (https://github.example/acme/widgets/pull/4)',
    );
  });

  it("works on a pull request's own branch, with what it was asked on after the request", async () => {
    const pull = {
      number: 7,
      title: 'Parser: accept empty input',
      body: 'Please review',
      author: 'contributor',
      state: 'open',
      draft: false,
      url: 'https://github.example/acme/widgets/pull/7',
      head: { ref: 'caravel/t', sha: 'c'.repeat(40), repository },
      base: { ref: 'main', sha: BASE },
    };
    const comment = { id: 5, author: 'hubot', body: 'rename this', bot: false, path: 'a.ts' };
    const { executor, inputs, acquired, streamed, integrations } = executorWith(
      { kind: 'run', lease },
      {
        kind: 'pull-request',
        pull,
        asked: undefined,
        comments: { review: [comment], conversation: [] },
        threadHead: null,
      },
    );
    // The pull request is merged while the run works: its SCM reads it again before a commit.
    const reads: number[] = [];
    integrations.scmReader = () =>
      strictMock<GitHubScmReader>(
        {
          getPullRequest: (number: number) => {
            reads.push(number);
            return Promise.resolve({ ...pull, state: 'merged' });
          },
        },
        'reader',
      );
    await executor.execute(startCommand(), heartbeat);

    expect(acquired[0]?.[1]).toEqual({ ...repository, baseBranch: 'caravel/t' });
    expect(acquired[0]?.[2]).toMatchObject({ branch: 'caravel/t' });
    expect(inputs[0]?.scm).toMatchObject({ inner: expect.any(PullRequestScm) });
    await expect(inputs[0]?.scm.commitAndPush({ message: 'Fix' })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    expect(reads).toEqual([7]);
    const opening = JSON.stringify(streamed[0]);
    expect(opening).toContain('fix the flaky test in parser.spec.ts');
    expect(opening).toContain('You were asked on pull request #7');
    expect(opening).toContain('untrusted_content source=\\"github\\" author=\\"hubot');
    // The sandbox (at BASE) is behind the pull request's head: the agent is told.
    expect(opening).toContain(`Your sandbox is at ${BASE.slice(0, 12)}`);
  });

  const forkPull = {
    number: 7,
    title: 'T',
    body: '',
    author: 'someone',
    state: 'open',
    draft: false,
    url: 'u',
    head: { ref: 'patch-1', sha: BASE, repository: { owner: 'someone', name: 'widgets' } },
    base: { ref: 'release-2', sha: 'a'.repeat(40) },
  };
  const forkSubject: RunSubject = {
    kind: 'fork',
    pull: forkPull,
    asked: undefined,
    comments: { review: [], conversation: [] },
  };

  it("works on a fork's pull request from its head, on a branch of its own, and opens a new pull request against its base", async () => {
    const { executor, inputs, acquired, streamed, integrations, replied } = executorWith(
      { kind: 'run', lease },
      forkSubject,
    );
    const drafts: PullRequestDraft[] = [];
    integrations.pullRequestHost = () =>
      strictMock<GitHubCodeHost>(
        {
          openPullRequest: (draft: PullRequestDraft) =>
            Promise.resolve(void drafts.push(draft)).then(() => ({
              number: 12,
              url: 'https://github.example/acme/widgets/pull/12',
              draft: true,
            })),
        },
        'host',
      );
    await executor.execute(startCommand(), heartbeat);

    const { threadId } = StartRunV1.fixture().data;
    expect(acquired[0]?.[1]).toEqual(repository);
    expect(acquired[0]?.[2]).toMatchObject({
      branch: `caravel/${threadId.slice(0, 8)}`,
      startRef: 'refs/pull/7/head',
    });
    const scm = inputs[0]?.scm;
    expect(scm).toMatchObject({ inner: expect.any(ForkPullRequestScm) });
    const opening = JSON.stringify(streamed[0]);
    expect(opening).toContain('You were asked on pull request #7, whose head branch `patch-1`');
    expect(opening).toContain('a new pull request against `release-2`');

    await scm?.openPullRequest({ branch: 'caravel/t', title: 'Fix', body: 'Fixed it.' });
    expect(drafts).toEqual([
      {
        branch: 'caravel/t',
        title: 'Fix',
        body: expect.stringMatching(
          /^Fixed it\.\n\n---\nBuilds on #7 \(`patch-1` from someone\/widgets\)/,
        ),
        base: 'release-2',
      },
    ]);
    expect(replied).toEqual([
      expect.stringMatching(
        /^I couldn't push to this pull request: its branch `patch-1` lives in someone\/widgets.*I opened #12 \(https:\/\/github.example\/acme\/widgets\/pull\/12\)/,
      ),
    ]);
  });

  it("ends a fork's run exit_forfeit with one clear reply when the repository cannot give its head", async () => {
    const { executor, sandboxes, log, streamed } = executorWith(
      { kind: 'run', lease },
      forkSubject,
    );
    sandboxes.forRun = () =>
      Promise.reject(
        new AppError('NOT_FOUND', 'refs/pull/7/head could not be fetched', {
          details: { reason: 'start_ref_unavailable' },
        }),
      );

    await executor.execute(startCommand(), heartbeat);

    expect(streamed).toEqual([]);
    expect(log.filter((line) => line.startsWith('told: '))).toEqual([
      expect.stringMatching(
        /^told: I can't work on this pull request: its branch `patch-1` lives in someone\/widgets/,
      ),
    ]);
    expect(log).toContainEqual(expect.stringMatching(/^finished exit_forfeit/));
  });

  /** An agent that calls `commit_and_open_pr` once per message in `messages`, as the tool does. */
  function publishingAgent(run: ReturnType<typeof executorWith>, messages: string[]): void {
    run.agent.stream = (async () => {
      const scm = run.inputs[0]!.scm;
      for (const message of messages) {
        try {
          await scm.commitAndPush({ message });
          await scm.openPullRequest({ branch: 'caravel/t', title: message, body: '' });
        } catch {
          // The tool's error goes back to the model, which goes on (here: to submit).
        }
      }
      return (async function* () {})();
    }) as never;
  }

  it('ends a run whose last publish failed `submitted (exit_unpublished)`, a failure that says why', async () => {
    const run = executorWith({ kind: 'run', lease });
    run.broker.push = () =>
      Promise.reject(new AppError('CONFLICT', 'the remote refused the push\nhook declined'));
    publishingAgent(run, ['Fix the parser']);

    await run.executor.execute(startCommand(), heartbeat);

    expect(run.log).toContainEqual(
      'finished submitted (exit_unpublished): The changes are not in a pull request: their last ' +
        "publish failed: the remote refused the push (CONFLICT). They are kept in the thread's " +
        'sandbox; reply to publish them again.',
    );
  });

  it('ends a run clean when a failed publish was retried and went through', async () => {
    const run = executorWith({ kind: 'run', lease });
    let refusals = 1;
    const push = run.broker.push;
    run.broker.push = (request) =>
      refusals-- > 0 ? Promise.reject(new Error('the remote hung up')) : push(request);
    publishingAgent(run, ['Fix the parser', 'Fix the parser']);

    await run.executor.execute(startCommand(), heartbeat);

    expect(run.pushes).toEqual(['Fix the parser']);
    expect(run.log).toContainEqual('finished submitted: +fixed');
  });

  it('ends a run `submitted (exit_unpublished)` when the always-create policy let it finish without a pull request', async () => {
    const run = executorWith({ kind: 'run', lease });
    run.agent.stream = (() => {
      run.inputs[0]!.events.emit({ type: 'pull_request_policy_unmet' });
      return Promise.resolve((async function* () {})());
    }) as never;

    await run.executor.execute(startCommand(), heartbeat);

    expect(run.log).toContainEqual(
      expect.stringMatching(
        /^finished submitted \(exit_unpublished\): The changes are not in a pull request: the person who asked always wants a pull request/,
      ),
    );
  });

  it("gives the agent the repository's AGENTS.md files as its base has them on GitHub, not the sandbox's", async () => {
    const github = executorWith({ kind: 'run', lease }, forkSubject);
    const reads: string[] = [];
    github.integrations.scmReader = () =>
      strictMock<GitHubScmReader>(
        {
          listFilesAt: (ref?: string) => {
            reads.push(`listing@${ref}`);
            return Promise.resolve({ paths: ['AGENTS.md', 'src/app.ts'], truncated: false });
          },
          readFileAt: (path: string, ref?: string) => {
            reads.push(`${path}@${ref}`);
            return Promise.resolve("the team's rules");
          },
        },
        'reader',
      );
    github.integrations.pullRequestHost = () => null;
    await github.executor.execute(startCommand(), heartbeat);

    expect(await github.inputs[0]?.instructions.read('AGENTS.md')).toBe("the team's rules");
    expect(await github.inputs[0]?.instructions.read('src/AGENTS.md')).toBeUndefined();
    // One listing of the pull request's base, then only the AGENTS.md files it holds.
    const base = 'a'.repeat(40);
    expect(reads).toEqual([`listing@${base}`, `AGENTS.md@${base}`]);
    // Off GitHub, the working tree is the repository's own.
    const local = executorWith({ kind: 'run', lease });
    await local.executor.execute(startCommand(), heartbeat);
    const sandbox = local.inputs[0]?.workspace.sandbox;
    expect(sandbox).toBeDefined();
    sandbox!.readFile = () => Promise.resolve('Use tabs.');
    expect(await local.inputs[0]?.instructions.read('AGENTS.md')).toBe('Use tabs.');
  });

  it('runs nothing for a start that a live runner of the same run holds', async () => {
    const { executor, log } = executorWith({ kind: 'held', holder: 'runner-a/run/r' });

    await executor.execute(startCommand(), heartbeat);

    expect(log).toEqual([]);
  });

  it('answers a start for a run that has ended through its events, and runs nothing', async () => {
    const run = factory.run({ id: 'r', status: 'running', exitStatus: null });
    const { executor, events, log } = executorWith({ kind: 'ended', run });
    const answered: RunRow[] = [];
    events.answerEndedStart = (_command, ended) => Promise.resolve(void answered.push(ended));

    await executor.execute(startCommand(), heartbeat);

    expect(answered).toEqual([run]);
    expect(log).toEqual([]);
  });

  it('ends a run whose sandbox cannot be reached exit_environment_error, with one message to the user', async () => {
    const { executor, sandboxes, sandboxLoss, channel, log } = executorWith({ kind: 'run', lease });
    sandboxes.forRun = () => Promise.reject(sandboxUnreachable('t', 'sbx-1', new Error('gone')));
    const told: unknown[] = [];
    sandboxLoss.tell = (to, runId) => Promise.resolve(void told.push([to, runId]));

    await executor.execute(startCommand(), heartbeat);

    expect(told).toEqual([[channel, StartRunV1.fixture().data.runId]]);
    expect(log).toContainEqual(expect.stringMatching(/^finished exit_environment_error/));
    expect(log.slice(-2)).toEqual(['sandbox released', 'lease released']);
  });

  it('ends an interrupted run exit_interrupted, submitting nothing', async () => {
    const { executor, agent, interrupt, log } = executorWith({ kind: 'run', lease });
    agent.stream = (() => {
      interrupt.abort(new Error('a new message'));
      return Promise.reject(new Error('aborted'));
    }) as never;

    await executor.execute(startCommand(), heartbeat);

    expect(log).toContainEqual(expect.stringMatching(/^finished exit_interrupted: Interrupted/));
  });

  it('hands the run back when its runner stops: not ended, the thread and the session let go', async () => {
    const { executor, agent, log } = executorWith({ kind: 'run', lease });
    const stopping = new AbortController();
    agent.stream = ((_input: unknown, options: { signal: AbortSignal }) => {
      log.push('agent streamed');
      stopping.abort();
      expect(options.signal.aborted).toBe(true);
      return Promise.reject(new Error('aborted'));
    }) as never;

    const handedBack: unknown = await executor
      .execute(startCommand(), heartbeat, stopping.signal)
      .catch((error: unknown) => error);

    expect(handedBack).toMatchObject({
      code: 'DEPENDENCY_UNAVAILABLE',
      retryable: true,
      details: { reason: 'shutting_down' },
    });
    expect(log.filter((line) => line.startsWith('finished'))).toEqual([]);
    expect(log.slice(-3)).toEqual(['watch stopped', 'sandbox released', 'lease released']);
  });

  it('gives the wait for its sandbox up when its runner stops mid-clone, and hands the run back', async () => {
    const { executor, sandboxes, log } = executorWith({ kind: 'run', lease });
    const stopping = new AbortController();
    sandboxes.forRun = (_threadId, _repository, options) =>
      new Promise((_resolve, reject) => {
        options?.signal?.addEventListener('abort', () => reject(new Error('given up')));
        stopping.abort();
      });

    const handedBack = executor.execute(startCommand(), heartbeat, stopping.signal);

    await expect(handedBack).rejects.toMatchObject({ details: { reason: 'shutting_down' } });
    expect(log).toEqual([
      'lease held',
      'live output closed',
      'watch stopped',
      'sandbox released',
      'lease released',
    ]);
  });

  it('hands the run back when its sandbox broker is shutting down, telling the user nothing', async () => {
    const { executor, sandboxes, replied, log } = executorWith({ kind: 'run', lease });
    sandboxes.forRun = () => Promise.reject(brokerStopping('setting up the sandbox'));

    const handedBack = executor.execute(startCommand(), heartbeat);

    await expect(handedBack).rejects.toMatchObject({ details: { reason: 'shutting_down' } });
    expect(replied).toEqual([]);
    expect(log.filter((line) => line.startsWith('finished'))).toEqual([]);
  });

  it('hands a run of several attempts to retry-and-select, publishing the winner through the run SCM', async () => {
    const { executor, attempts, log } = executorWith({ kind: 'run', lease });
    const contexts: AttemptsRunContext[] = [];
    attempts.run = (_command, context) => {
      contexts.push(context);
      return Promise.resolve({
        exitStatus: 'submitted',
        submission: '+x',
        observation: 'Attempt 1 of 2 selected',
      });
    };

    await executor.execute(startCommand({ attempts: 2 }), heartbeat);

    expect(log).toEqual([
      'lease held',
      'watch stopped',
      'finished submitted: Attempt 1 of 2 selected',
      'sandbox released',
      'lease released',
    ]);
    const workspace = strictMock<ThreadWorkspace>({}, 'thread');
    expect(contexts[0]?.scmFor(workspace)).toBeInstanceOf(GitScm);
  });
});
