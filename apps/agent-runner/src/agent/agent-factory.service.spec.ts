import { workingTreeInstructionFiles } from './agents-file-finder.js';
import { LazyImport } from '@caravel/agent';
import { MemorySaver } from '@langchain/langgraph';
import type {
  ThreadMessageRepository,
  ThreadPlanRepository,
  UserInstructionsRepository,
  UserProfileRepository,
  UserProfileRow,
} from '@caravel/db';
import { factory } from '@caravel/db/testing';
import type { SandboxBrokerClient, ToolSandboxAdapter } from '@caravel/sandbox';
import { strictMock } from '@caravel/testing/doubles';
import type { ReplyChannel, ScmPort } from '@caravel/tools';
import { agentRunnerConfigFrom } from '../agent-runner.config.js';
import type { ThreadWorkspace } from '../sandbox/thread-sandbox.service.js';
import { AgentFactoryService, type AgentRunInputs } from './agent-factory.service.js';
import type { CheckpointerService } from './checkpointer.service.js';
import { AgentKitLoader, type AgentKit } from './agent-kit.loader.js';
import { RunModels } from './run-models.js';
import type { SandboxLossNotice } from './sandbox-loss.notice.js';

const THREAD = 't-1';
const TEAM_MODEL = 'anthropic:claude-sonnet-4-5';

function profile(overrides: Partial<UserProfileRow>): UserProfileRow {
  return factory.userProfile({
    identity: 'slack:U1',
    model: null,
    reasoningEffort: null,
    draftPullRequests: true,
    alwaysCreatePullRequests: null,
    ...overrides,
  });
}

/**
 * A factory over strict doubles: `profiles` maps identities to profiles, `instructions` people to
 * their standing instructions, `agentsMd` is the sandbox's AGENTS.md (none when undefined). What
 * the factory asks of the thread's plans is kept in `owners`.
 */
function factoryWith(
  env: Record<string, string> = {},
  world: {
    profiles?: Record<string, UserProfileRow>;
    instructions?: Record<string, string>;
    agentsMd?: string;
    /** How the agent's LangChain side is loaded (the real loader unless told). */
    kit?: AgentKitLoader;
  } = {},
) {
  // An empty value leaves the key unset.
  const keys = {
    CARAVEL_MODEL: TEAM_MODEL,
    ANTHROPIC_API_KEY: 'sk-ant-test',
    OPENAI_API_KEY: 'sk-test',
  };
  const config = agentRunnerConfigFrom(
    Object.fromEntries(Object.entries({ ...keys, ...env }).filter(([, value]) => value !== '')),
  );
  const owners: string[] = [];
  const plans = strictMock<ThreadPlanRepository>(
    {
      claimOwner: (threadId, owner) => {
        owners.push(`claim ${threadId} ${owner}`);
        return Promise.resolve(owner);
      },
      ownerOf: (threadId) => {
        owners.push(`read ${threadId}`);
        return Promise.resolve(null);
      },
    },
    'plans',
  );
  const instructions = strictMock<UserInstructionsRepository>(
    {
      find: (person) => {
        const text = world.instructions?.[person];
        return Promise.resolve(text ? ({ subject: person, instructions: text } as never) : null);
      },
    },
    'instructions',
  );
  const profiles = strictMock<UserProfileRepository>(
    { get: (identity) => Promise.resolve(world.profiles?.[identity] ?? null) },
    'profiles',
  );
  const messages = strictMock<ThreadMessageRepository>(
    { takenBy: () => Promise.resolve([]) },
    'messages',
  );
  const checkpointer = strictMock<CheckpointerService>(
    { get: () => Promise.resolve(new MemorySaver() as never) },
    'checkpointer',
  );
  const kit = world.kit ?? new AgentKitLoader();
  const factory = new AgentFactoryService(
    config,
    new RunModels(config, kit),
    checkpointer,
    plans,
    instructions,
    profiles,
    strictMock<SandboxLossNotice>({}, 'sandboxLoss'),
    messages,
    kit,
  );
  const sandbox = strictMock<ThreadWorkspace['sandbox']>(
    {
      readFile: (path: string) =>
        path === 'AGENTS.md' && world.agentsMd !== undefined
          ? Promise.resolve(world.agentsMd)
          : Promise.reject(new Error(`no ${path}`)),
    },
    'sandbox',
  );
  return { factory, owners, sandbox };
}

function inputs(
  sandbox: ThreadWorkspace['sandbox'],
  overrides: Partial<AgentRunInputs> = {},
): AgentRunInputs {
  const workspace = strictMock<ThreadWorkspace>(
    {
      threadId: THREAD,
      sandbox,
      tools: strictMock<ToolSandboxAdapter>({}, 'tools'),
      broker: strictMock<SandboxBrokerClient>({}, 'broker'),
    },
    'workspace',
  );
  return {
    threadId: THREAD,
    runId: 'r-1',
    options: {},
    workspace,
    instructions: workingTreeInstructionFiles(sandbox),
    channel: strictMock<ReplyChannel>({}, 'channel'),
    scm: strictMock<ScmPort>({}, 'scm'),
    notifier: strictMock<AgentRunInputs['notifier']>({}, 'notifier'),
    events: strictMock<AgentRunInputs['events']>({}, 'events'),
    queue: strictMock<AgentRunInputs['queue']>({}, 'queue'),
    isTrustedAuthor: () => false,
    ...overrides,
  };
}

describe('AgentFactoryService', () => {
  it("resolves the run's model: the thread's choice, else the requester's profile, else the team's", async () => {
    const { factory, sandbox } = factoryWith(
      {},
      { profiles: { 'slack:U1': profile({ model: 'openai:gpt-5' }) } },
    );

    const team = await factory.build(inputs(sandbox));
    const own = await factory.build(inputs(sandbox, { requestedBy: 'slack:U1' }));
    const thread = await factory.build(
      inputs(sandbox, { requestedBy: 'slack:U1', options: { model: 'anthropic:claude-opus-4-1' } }),
    );

    expect([team, own, thread].map((b) => `${b.model.provider}:${b.model.modelId}`)).toEqual([
      TEAM_MODEL,
      'openai:gpt-5',
      'anthropic:claude-opus-4-1',
    ]);
  });

  it('refuses to build an agent when no model is named anywhere', async () => {
    const { factory, sandbox } = factoryWith({ CARAVEL_MODEL: '' });
    await expect(factory.build(inputs(sandbox))).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining('CARAVEL_MODEL'),
    });
  });

  it("lets the run's requester claim the thread, and only reads its owner for a run nobody asked for", async () => {
    const { factory, sandbox, owners } = factoryWith();

    await factory.build(inputs(sandbox, { requestedBy: 'slack:U1' }));
    await factory.build(inputs(sandbox));

    expect(owners).toEqual([`claim ${THREAD} slack:U1`, `read ${THREAD}`]);
  });

  it("puts the repository's AGENTS.md in the system prompt, and the pull-request policy when the requester or the team asks", async () => {
    const prompts = async (env: Record<string, string>, always: boolean | null) => {
      const { factory, sandbox } = factoryWith(env, {
        agentsMd: 'Run npm test before committing.',
        profiles: { 'slack:U1': profile({ alwaysCreatePullRequests: always }) },
      });
      const built = await factory.build(inputs(sandbox, { requestedBy: 'slack:U1' }));
      const prompt = built.agent.options.systemPrompt;
      // The prompt announced on evt.run.started (and exported to the .traj) is the agent's own.
      expect(built.systemPrompt).toBe(prompt);
      return typeof prompt === 'string' ? prompt : '';
    };

    const byDefault = await prompts({}, null);
    const byTeam = await prompts({ RUN_ALWAYS_CREATE_PRS: 'true' }, null);
    const refusedByPerson = await prompts({ RUN_ALWAYS_CREATE_PRS: 'true' }, false);

    expect(byDefault).toContain(
      'Repository instructions (AGENTS.md):\nRun npm test before committing.',
    );
    expect(byDefault).not.toContain('always create pull requests');
    expect(byTeam).toContain('always create pull requests');
    expect(refusedByPerson).not.toContain('always create pull requests');
  });

  it("opens the run with the requester's standing instructions, nobody else's", async () => {
    const { factory, sandbox } = factoryWith(
      {},
      { instructions: { 'slack:U1': 'Answer in French.', 'slack:U2': 'Use tabs.' } },
    );

    const built = await factory.build(inputs(sandbox, { requestedBy: 'slack:U1' }));
    const opening = built.openingMessage('Fix the build');

    expect(opening).toMatch(/^Fix the build/);
    expect(opening).toContain('Answer in French.');
    expect(opening).not.toContain('Use tabs.');
  });

  it('gives the agent the curated tools, with the ones that end a run returning at once', async () => {
    const { factory, sandbox } = factoryWith();

    const built = await factory.build(inputs(sandbox));
    const tools = (built.agent.options.tools ?? []) as { name: string; returnDirect?: boolean }[];
    const names = tools.map((tool) => tool.name);

    expect(names).toEqual(
      expect.arrayContaining(['execute', 'read_file', 'commit_and_open_pr', 'reply_to_user']),
    );
    expect(tools.find((tool) => tool.name === 'submit')?.returnDirect).toBe(true);
    expect(tools.find((tool) => tool.name === 'execute')?.returnDirect).toBeFalsy();
  });

  it('fails a run whose agent cannot be loaded with a clear error, and loads it for the next run', async () => {
    let loads = 0;
    const kit = new LazyImport<AgentKit>('the coding agent', () => {
      loads += 1;
      return loads === 1 ? Promise.reject(new Error('ENOMEM')) : import('./agent-kit.js');
    });
    const { factory, sandbox } = factoryWith({}, { kit });

    await expect(factory.build(inputs(sandbox))).rejects.toMatchObject({
      code: 'INTERNAL',
      message: 'Could not load the coding agent: ENOMEM',
    });
    const built = await factory.build(inputs(sandbox));

    expect(built.model).toMatchObject({ provider: 'anthropic', modelId: 'claude-sonnet-4-5' });
    expect(loads).toBe(2);
  });

  it('lets the graph run longer when the run may make more model calls', async () => {
    const few = factoryWith({ RUN_MAX_MODEL_CALLS: '5' });
    const many = factoryWith({ RUN_MAX_MODEL_CALLS: '50' });

    const short = await few.factory.build(inputs(few.sandbox));
    const long = await many.factory.build(inputs(many.sandbox));

    expect(long.recursionLimit).toBeGreaterThan(short.recursionLimit);
  });
});
