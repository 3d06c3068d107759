import { workingTreeInstructionFiles } from '../agent/agents-file-finder.js';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseMessage } from '@langchain/core/messages';
import { LoopExitError } from '@caravel/agent';
import { StartRunV1, type EnvelopeOf } from '@caravel/contracts';
import type { PlatformRuntime } from '@caravel/platform';
import type { ExecResult, ToolSandboxAdapter } from '@caravel/sandbox';
import { strictMock } from '@caravel/testing/doubles';
import type { ScmPort } from '@caravel/tools';
import type {
  AgentFactoryService,
  AgentRunInputs,
  BuiltAgent,
} from '../agent/agent-factory.service.js';
import type { RunBudgets, RunBudgetLimit } from '../agent/budget-of-run.js';
import type { RunModels } from '../agent/run-models.js';
import { agentRunnerConfigFrom } from '../agent-runner.config.js';
import type { GitHubCodeHost } from '@caravel/integrations';
import type { RunIntegrationsService } from '../integrations/run-integrations.service.js';
import { MERGED_PULL } from '../testing/branch-pulls.js';
import { RunWorkspaces, type RunWorkspace } from '../sandbox/run-workspaces.js';
import type { ThreadSandboxService, ThreadWorkspace } from '../sandbox/thread-sandbox.service.js';
import { recordingPublisher } from '../testing/recording-publisher.js';
import { attemptIds } from './attempt-runner.js';
import { AttemptsService, type AttemptsRunContext } from './attempts.service.js';

const HEAD = 'c'.repeat(40);
const command: EnvelopeOf<typeof StartRunV1> = (() => {
  const fixture = StartRunV1.fixture();
  return { ...fixture, data: { ...fixture.data, options: { attempts: 2 } } };
})();
const { threadId, runId } = command.data;

/** What attempt `index` does as the agent: its change, and whether it publishes and replies. */
interface AttemptScript {
  diff: string;
  commitMessage?: string;
  pullRequest?: boolean;
  reply?: string;
  /** Dollars the attempt's model calls cost. */
  spendUsd?: number;
  /** Its next call would cross its budget: it ends `exit_cost`, as the run-limits middleware does. */
  hitsBudget?: boolean;
}

const execResult = (exitCode: number, output = ''): ExecResult => ({
  exitCode,
  output,
  timedOut: false,
  truncated: false,
  outputBytes: output.length,
  elapsedMs: 1,
});

function workspaceOf(thread: string, diff: string, log: string[], applies = true): ThreadWorkspace {
  const sandbox = strictMock<ThreadWorkspace['sandbox']>(
    {
      writeFile: (path: string) => Promise.resolve(void log.push(`${thread}: write ${path}`)),
      exec: (command: string) => {
        log.push(`${thread}: ${command.split(' ').slice(0, 2).join(' ')}`);
        return Promise.resolve(execResult(applies ? 0 : 1, applies ? '' : 'patch does not apply'));
      },
    },
    `sandbox ${thread}`,
  );
  const broker = strictMock<ThreadWorkspace['broker']>(
    {
      commitAll: (_thread: string, message: string) =>
        Promise.resolve(log.push(`${thread}: commit ${message}`) ? 'abc' : null),
    },
    'broker',
  );
  return strictMock<RunWorkspace>(
    {
      threadId: thread,
      outcome: 'created',
      branch: `caravel/${thread}`,
      baseCommit: HEAD,
      // What RunWorkspaces hands out when the sandbox starts where it always does.
      startNote: undefined,
      sandbox,
      broker,
      tools: strictMock<ToolSandboxAdapter>({ diff: () => Promise.resolve(diff) }, 'tools'),
    },
    `workspace ${thread}`,
  );
}

/**
 * A built agent that acts out `script` through the run's SCM and channel, as its tools would; the
 * prompt it opens with goes to `prompts`.
 */
function scriptedAgent(run: AgentRunInputs, script: AttemptScript, prompts: string[]): BuiltAgent {
  const agent = strictMock<BuiltAgent['agent']>(
    {
      graph: strictMock<BuiltAgent['agent']['graph']>(
        { getState: () => Promise.resolve({ values: { messages: [] } }) as never },
        'graph',
      ),
      stream: (async () => {
        if (script.spendUsd !== undefined) {
          const totals = { costUsd: script.spendUsd, tokensSent: 1, tokensReceived: 1, calls: 1 };
          run.events.emit({ type: 'model_call_cost', costUsd: script.spendUsd, totals });
        }
        if (script.hitsBudget) throw new LoopExitError('exit_cost', 'over budget');
        if (script.commitMessage) await run.scm.commitAndPush({ message: script.commitMessage });
        if (script.pullRequest)
          await run.scm.openPullRequest({ branch: 'b', title: `PR ${script.diff}`, body: '' });
        if (script.reply) await run.channel.reply(script.reply);
        return (async function* () {})();
      }) as never,
    },
    'agent',
  );
  return {
    agent,
    model: { provider: 'scripted', modelId: 'attempt' } as BuiltAgent['model'],
    systemPrompt: 'You are Caravel.',
    recursionLimit: 25,
    openingMessage: (prompt) => (prompts.push(prompt), prompt),
  };
}

/**
 * Retry-and-select over strict doubles: each attempt acts out its script; the reviewer scores a
 * patch by `scores` (the patch's text to its score). `log` says, in order, what happened in the
 * sandboxes and through the thread's SCM and channel.
 */
function attemptsWith(
  scripts: AttemptScript[],
  scores: Record<string, number>,
  applies = true,
  budgets?: RunBudgets,
  host: GitHubCodeHost | null = null,
) {
  const log: string[] = [];
  const threadOptions: Parameters<ThreadSandboxService['forRun']>[2][] = [];
  const recording = recordingPublisher();
  const thread = workspaceOf('thread', '', log, applies);
  const sandboxes = strictMock<ThreadSandboxService>(
    {
      forRun: (id, _repository, options = {}) => {
        if (!options.startFrom) {
          threadOptions.push(options);
          return Promise.resolve(thread);
        }
        const index = scripts.findIndex((_s, i) => attemptIds(runId, i).threadId === id);
        expect(options.startFrom).toBe(threadId);
        return Promise.resolve(workspaceOf(`attempt ${index}`, scripts[index]!.diff, log));
      },
      release: (id) => Promise.resolve(void log.push(`release ${nameOf(id)}`)),
      discard: (id) => Promise.resolve(log.push(`discard ${nameOf(id)}`) > 0),
    },
    'sandboxes',
  );
  const nameOf = (id: string) => {
    const index = scripts.findIndex((_s, i) => attemptIds(runId, i).threadId === id);
    return index < 0 ? id : `attempt ${index}`;
  };
  let built = 0;
  const inputs: Parameters<AgentFactoryService['build']>[0][] = [];
  const prompts: string[] = [];
  const factory = strictMock<AgentFactoryService>(
    {
      build: (run) => {
        inputs.push(run);
        return Promise.resolve(scriptedAgent(run, scripts[built++]!, prompts));
      },
    },
    'factory',
  );
  const reviewer = strictMock<BaseChatModel>(
    {
      invoke: ((messages: BaseMessage[]) => {
        const content = messages.at(-1)?.content;
        const prompt = typeof content === 'string' ? content : '';
        const patch = Object.keys(scores).find((diff) => prompt.includes(diff)) ?? '';
        return Promise.resolve({ content: `Looks right.\n${scores[patch] ?? 0}` });
      }) as never,
    },
    'reviewer',
  );
  const models = strictMock<RunModels>({ reviewModel: () => Promise.resolve(reviewer) }, 'models');
  const config = agentRunnerConfigFrom({
    RUN_REVIEW_SAMPLES: '1',
    CARAVEL_MODEL: 'openai:gpt-5',
    OPENAI_API_KEY: 'sk-test',
  });
  const service = new AttemptsService(
    strictMock<PlatformRuntime>({ name: 'runner-b' }, 'runtime'),
    recording.publisher,
    sandboxes,
    new RunWorkspaces(
      sandboxes,
      strictMock<RunIntegrationsService>({ pullRequestHost: () => host }, 'integrations'),
    ),
    factory,
    models,
    config,
    budgets,
  );
  const scm = strictMock<ScmPort>(
    {
      commitAndPush: (request) => {
        log.push(`thread scm: commit and push ${request.message}`);
        return Promise.resolve({ branch: 'b', commitSha: 'd' });
      },
      openPullRequest: (request) => {
        log.push(`thread scm: pull request ${request.title}`);
        return Promise.resolve({ number: 1, url: 'u', draft: true });
      },
    },
    'thread scm',
  );
  const announced: string[] = [];
  const context: AttemptsRunContext = {
    heartbeat: () => Promise.resolve(),
    signal: new AbortController().signal,
    reply: (text) => Promise.resolve(log.push(`reply ${text}`)),
    instructionsFor: (workspace) => workingTreeInstructionFiles(workspace.sandbox),
    scmFor: (workspace) => {
      // The thread's own workspace (with its start note, when it started over), not an attempt's.
      expect(workspace).toMatchObject({ threadId: 'thread', baseCommit: thread.baseCommit });
      return scm;
    },
    announce: (details) => {
      announced.push(details.prompt);
      return Promise.resolve(void log.push(`announce ${details.model}`));
    },
  };
  return { service, context, log, recording, inputs, threadOptions, prompts, announced };
}

const attemptsOf = (published: Record<string, unknown>) =>
  (published['attempts'] as { index: number; score: number | null }[]).map((a) => [
    a.index,
    a.score,
  ]);

describe('AttemptsService', () => {
  it('adopts only the best-scored attempt: its patch applied, committed and published in the thread as it asked, its replies posted', async () => {
    const { service, context, log, recording } = attemptsWith(
      [
        { diff: '+A', commitMessage: 'Try A', pullRequest: true, reply: 'A is done' },
        { diff: '+B', commitMessage: 'Try B', pullRequest: true, reply: 'B is done' },
      ],
      { '+A': 3, '+B': 9 },
    );

    const conclusion = await service.run(command, context);

    expect(conclusion).toMatchObject({ exitStatus: 'submitted', submission: '+B' });
    expect(conclusion.observation).toMatch(/^Attempt 1 of 2 selected/);
    expect(log).toEqual([
      'announce score of 2 attempts',
      'attempt 0: commit Try A',
      'release attempt 0',
      'attempt 1: commit Try B',
      'release attempt 1',
      'discard attempt 0',
      'thread: write .caravel-apply.patch',
      'thread: git apply',
      'thread scm: commit and push Try B',
      'thread scm: pull request PR +B',
      'reply B is done',
      'discard attempt 1',
    ]);
    const [selected] = recording.dataOf('evt.run.attempts_selected');
    expect(selected).toMatchObject({ runId, winnerIndex: 1, strategy: 'score' });
    expect(attemptsOf(selected!)).toEqual([
      [0, 3],
      [1, 9],
    ]);
    expect(recording.types().filter((t) => t !== 'evt.run.attempts_selected')).toEqual([
      'evt.run.started',
      'evt.run.finished',
      'evt.run.started',
      'evt.run.finished',
    ]);
    expect(recording.dataOf('evt.run.started').map((d) => [d['runId'], d['attemptOf']])).toEqual([
      [attemptIds(runId, 0).runId, runId],
      [attemptIds(runId, 1).runId, runId],
    ]);
  });

  it("starts the thread's sandbox over at the base when its branch's pull request was merged, and tells every attempt why", async () => {
    const merged = MERGED_PULL;
    const host = strictMock<GitHubCodeHost>(
      { branchPullRequest: () => Promise.resolve(merged) },
      'host',
    );
    const { service, context, threadOptions, prompts, announced, recording } = attemptsWith(
      [
        { diff: '+A', commitMessage: 'Try A', pullRequest: true },
        { diff: '+B', commitMessage: 'Try B', pullRequest: true },
      ],
      { '+A': 3, '+B': 1 },
      true,
      undefined,
      host,
    );

    const conclusion = await service.run(command, context);

    expect(conclusion).toMatchObject({ exitStatus: 'submitted', submission: '+A' });
    expect(threadOptions).toEqual([
      expect.objectContaining({ branch: `caravel/${threadId.slice(0, 8)}`, atBase: true }),
    ]);
    // Every attempt is told why it starts over, after the request, as a single run is.
    const told = `${command.data.prompt}\n\nYour earlier pull request #4 (${merged.url})`;
    expect(prompts).toEqual([expect.stringMatching(/starts over/), expect.any(String)]);
    expect(prompts[1]).toBe(prompts[0]);
    expect(prompts[0]!.startsWith(told)).toBe(true);
    expect(recording.dataOf('evt.run.started').map((d) => d['prompt'])).toEqual(prompts);
    expect(announced).toEqual([prompts[0]]);
  });

  it('opens every attempt with the request alone when the sandbox has nothing to say', async () => {
    const { service, context, prompts, announced } = attemptsWith(
      [{ diff: '+A' }, { diff: '+B' }],
      { '+A': 3, '+B': 1 },
    );

    await service.run(command, context);

    expect(prompts).toEqual([command.data.prompt, command.data.prompt]);
    expect(announced).toEqual([command.data.prompt]);
  });

  it("gives each attempt its own todo list and subagents, told under the attempt's run id", async () => {
    const { service, context, recording, inputs } = attemptsWith(
      [
        { diff: '+A', commitMessage: 'Try A' },
        { diff: '+B', commitMessage: 'Try B' },
      ],
      { '+A': 5, '+B': 1 },
    );
    await service.run(command, context);

    await inputs[0]?.work?.todos([{ content: 'Try A', status: 'in_progress' }], 'c-1');
    expect(recording.dataOf('evt.run.todos')).toEqual([
      expect.objectContaining({ runId: attemptIds(runId, 0).runId, toolCallId: 'c-1' }),
    ]);
    expect(inputs[0]?.work?.subagentSteps('s').steps).toBe(0);
  });

  it('leaves a winner that never asked to publish in the thread sandbox, unpublished', async () => {
    const { service, context, log } = attemptsWith([{ diff: '+A' }, { diff: '+B' }], {
      '+A': 8,
      '+B': 2,
    });

    await expect(service.run(command, context)).resolves.toMatchObject({ submission: '+A' });
    expect(log.filter((line) => line.startsWith('thread'))).toEqual([
      'thread: write .caravel-apply.patch',
      'thread: git apply',
    ]);
  });

  it('applies nothing when no attempt changed anything', async () => {
    const { service, context, log } = attemptsWith([{ diff: '' }, { diff: '' }], {});

    const conclusion = await service.run(command, context);

    expect(conclusion).toMatchObject({
      submission: null,
      observation: 'No attempt of 2 submitted a change',
    });
    expect(log.filter((line) => line.startsWith('thread'))).toEqual([]);
    expect(log.filter((line) => line.startsWith('discard'))).toEqual([
      'discard attempt 0',
      'discard attempt 1',
    ]);
  });

  it("fails the run when the winner's patch does not apply to the thread, and still deletes every attempt sandbox", async () => {
    const { service, context, log } = attemptsWith(
      [{ diff: '+A', commitMessage: 'Try A' }, { diff: '+B' }],
      { '+A': 9, '+B': 1 },
      false,
    );

    await expect(service.run(command, context)).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(log.filter((line) => line.startsWith('thread scm'))).toEqual([]);
    expect(log.filter((line) => line.startsWith('discard'))).toEqual([
      'discard attempt 1',
      'discard attempt 0',
    ]);
  });

  describe("within the run's budget (team, repository, person: the tightest)", () => {
    const threeAttempts = {
      ...command,
      data: {
        ...command.data,
        source: 'slack' as const,
        requestedBy: { externalId: 'U1' },
        repository: { owner: 'acme', name: 'widgets' },
        options: { attempts: 3 },
      },
    };

    /** RunBudgets as a strict double: it names the repository's $3 limit, and never pauses. */
    function repositoryLimit(limit: RunBudgetLimit = { usd: 3, from: 'repository' }) {
      const asked: unknown[] = [];
      const budgets = strictMock<RunBudgets>(
        {
          limitOf: (run) => {
            asked.push(run);
            return Promise.resolve(limit);
          },
        },
        'budgets',
      );
      return { budgets, asked };
    }

    it('gives each attempt what is left of it and stops trying at it, naming the limit, without pausing', async () => {
      const { budgets, asked } = repositoryLimit();
      const { service, context, log, inputs } = attemptsWith(
        [
          { diff: '+A', commitMessage: 'Try A', spendUsd: 2, reply: 'A is done' },
          { diff: '+B', spendUsd: 1, hitsBudget: true },
          { diff: '+C' },
        ],
        { '+A': 9, '+B': 2 },
        true,
        budgets,
      );

      const conclusion = await service.run(threeAttempts, context);

      expect(asked).toEqual([
        {
          threadId,
          runId,
          requestedBy: 'slack:U1',
          workspace: { repository: { owner: 'acme', name: 'widgets' } },
        },
      ]);
      expect(inputs.map((run) => [run.budgetUsd, run.budgetPause])).toEqual([
        [3, undefined],
        [1, undefined],
      ]);
      const stop =
        "Stopped at this run's $3.00 budget (the limit for acme/widgets): 2 of 3 attempts ran " +
        'and spent $3.00; the best of them was kept.';
      expect(log.filter((line) => line.startsWith('reply'))).toEqual([
        `reply ${stop}`,
        'reply A is done',
      ]);
      expect(conclusion).toMatchObject({ submission: '+A' });
      expect(conclusion.observation).toBe(`Attempt 0 of 2 selected (scored). ${stop}`);
    });

    it('says nothing of the budget when every attempt ran within it', async () => {
      const { budgets } = repositoryLimit({ usd: 10, from: 'team' });
      const { service, context, log } = attemptsWith(
        [
          { diff: '+A', spendUsd: 2 },
          { diff: '+B', spendUsd: 2 },
          { diff: '+C', spendUsd: 2 },
        ],
        { '+A': 1, '+B': 2, '+C': 3 },
        true,
        budgets,
      );

      const conclusion = await service.run(threeAttempts, context);

      expect(log.filter((line) => line.startsWith('reply'))).toEqual([]);
      expect(conclusion.observation).toMatch(/^Attempt 2 of 3 selected \([a-z]+\)$/);
    });
  });
});
