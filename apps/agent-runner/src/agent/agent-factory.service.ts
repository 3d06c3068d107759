import { CARAVEL_BLOCKLIST, type ResolvedModel } from '@caravel/agent';
import type { ThreadOptions } from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import {
  buildMiddlewareStack,
  foldHooks,
  graphRecursionLimitFor,
  systemClock,
  type AssistantStatusPort,
  type MessageQueue,
  type MiddlewareEventSink,
  type MiddlewareStackOptions,
  type RunPreparationPort,
  type StepLimitNotifier,
} from '@caravel/middleware';
import {
  agentStateTools,
  channelTools,
  curatedTools,
  endsRun,
  mutatingToolNames,
  toLangChainTools,
  type AgentStatePorts,
  type CaravelTool,
  type ChannelPorts,
  type ReplyChannel,
  type ScmPort,
  withUserInstructions,
} from '@caravel/tools';
import {
  ThreadMessageRepository,
  ThreadPlanRepository,
  UserInstructionsRepository,
  UserProfileRepository,
} from '@caravel/db';
import { isSandboxUnreachable } from '@caravel/sandbox';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { createAgent } from 'langchain';
import { AGENT_SETTINGS, type AgentSettings } from '../agent-runner.settings.js';
import type { ThreadWorkspace } from '../sandbox/thread-sandbox.service.js';
import { SandboxAgentsFileFinder } from './agents-file-finder.js';
import { CheckpointerService } from './checkpointer.service.js';
import { contextWindowOf, pricingFor } from './model-pricing.js';
import { RunModels } from './run-models.js';
import { RunPeopleTracker } from './run-people.js';
import { promptMessageId, type RunAgent } from './run-stream.js';
import { SandboxLossNotice } from './sandbox-loss.notice.js';
import { sandboxSyntaxChecker } from './sandbox-syntax-checker.js';
import { buildSystemPrompt } from './system-prompt.js';
import { instructionsLookup, openingInstructions } from './user-instructions.js';

/** What one run's agent is built from. */
export interface AgentRunInputs {
  threadId: string;
  /** The run: its budget counts the model calls after its own prompt. */
  runId: string;
  options: ThreadOptions;
  workspace: ThreadWorkspace;
  channel: ReplyChannel;
  notifier: StepLimitNotifier;
  events: MiddlewareEventSink;
  /** Follow-ups that reached the thread while this run works: injected before model calls. */
  queue: MessageQueue;
  /** Whether a follow-up's author may be read as instructions. */
  isTrustedAuthor: (author: string) => boolean;
  /** Directory `scripted:`/`replay:` model paths are resolved against (default `CARAVEL_FILE_ROOT`). */
  fileRoot?: string;
  /** The SCM the tools commit and publish through (`scm/run-scm.ts` chooses it). */
  scm: ScmPort;
  /** The integrations the run's channel tools are bound to (none when absent). */
  channelPorts?: ChannelPorts;
  /** This run's dollar budget (default `RUN_BUDGET_USD`); an attempt gets what is left. */
  budgetUsd?: number;
  /** Who asked for the run (`source:id`); the thread's first requester owns it (plan approval). */
  requestedBy?: string;
  /** The source channel's "is working…" status (Slack threads); none when absent. */
  assistantStatus?: AssistantStatusPort;
}

/** Tells the agent that the person who asked wants a pull request whenever files changed. */
const ALWAYS_CREATE_PRS =
  'Pull request policy: always create pull requests. Whenever you changed files, call ' +
  'commit_and_open_pr before you submit (it updates the pull request already open for your ' +
  'branch); submit is refused while your changes are not in it.';

/** One run's agent, ready to stream, and the model it resolved to. */
export interface BuiltAgent extends RunAgent {
  model: ResolvedModel;
  /** The system prompt the agent was built with (evt.run.started carries it to the .traj). */
  systemPrompt: string;
}

/** The tools the agent is given: those a middleware brings itself (the completion nudge) win. */
function agentTools(
  caravelTools: CaravelTool[],
  middleware: ReturnType<typeof buildMiddlewareStack>,
) {
  const owned = new Set(middleware.flatMap((m) => (m.tools ?? []).map((t) => t.name)));
  const tools = toLangChainTools(caravelTools.filter((tool) => !owned.has(tool.name)));
  for (const tool of tools) if (endsRun(tool.tool)) tool.returnDirect = true;
  return tools;
}

/**
 * Builds the coding agent for one run: the resolved model (thread > profile > team), the curated
 * tools bound to the thread's sandbox, the ordered middleware stack and the durable checkpointer.
 * The agent holds no state of its own: it lives in checkpoints, thread records and the sandbox.
 */
@Injectable()
export class AgentFactoryService {
  constructor(
    @Inject(AGENT_SETTINGS) private readonly settings: AgentSettings,
    @Inject(RunModels) private readonly models: RunModels,
    @Inject(CheckpointerService) private readonly checkpointer: CheckpointerService,
    @Inject(ThreadPlanRepository) private readonly plans: ThreadPlanRepository,
    @Inject(UserInstructionsRepository) private readonly instructions: UserInstructionsRepository,
    @Inject(UserProfileRepository) private readonly profiles: UserProfileRepository,
    @Inject(SandboxLossNotice) private readonly sandboxLoss: SandboxLossNotice,
    @Inject(ThreadMessageRepository) private readonly messages: ThreadMessageRepository,
  ) {}

  private readonly log = new Logger('AgentFactory');

  async build(inputs: AgentRunInputs): Promise<BuiltAgent> {
    const profile = inputs.requestedBy ? await this.profiles.get(inputs.requestedBy) : null;
    const model = this.models.resolve(inputs.options, profile);
    // The requester's own "always create PRs" choice, else the team's.
    const alwaysCreatePrs =
      profile?.alwaysCreatePullRequests ?? this.settings.RUN_ALWAYS_CREATE_PRS;
    const people = await this.people(inputs);
    const caravelTools = this.tools(inputs, people, profile?.draftPullRequests ?? true);
    // The hooks folded (one before-model node, the after-model ones in the model node): a step is
    // three checkpointed supersteps instead of nine.
    const middleware = foldHooks(
      buildMiddlewareStack(
        this.middlewareOptions(inputs, { model, people, caravelTools, alwaysCreatePrs }),
      ),
    );
    const systemPrompt = await this.systemPrompt(inputs, alwaysCreatePrs);
    const agent = createAgent({
      model: this.models.forAgent(model, inputs.fileRoot),
      tools: agentTools(caravelTools, middleware),
      middleware,
      checkpointer: await this.checkpointer.get(),
      systemPrompt,
    });
    const opening = await openingInstructions(
      { messages: this.messages, instructions: this.instructions },
      inputs,
    );
    return {
      agent,
      model,
      systemPrompt,
      recursionLimit: graphRecursionLimitFor(middleware, this.settings.RUN_MAX_MODEL_CALLS),
      openingMessage: (prompt) => withUserInstructions(prompt, opening),
    };
  }

  /** The curated tools bound to the run's sandbox, channel and SCM, its channel and state tools. */
  private tools(
    inputs: AgentRunInputs,
    people: RunPeopleTracker,
    draftPullRequests: boolean,
  ): CaravelTool[] {
    const bound = { sandbox: inputs.workspace.tools, channel: inputs.channel, scm: inputs.scm };
    return [
      ...curatedTools(
        { ...bound, draftPullRequests },
        { defaultExecTimeoutMs: this.settings.RUN_COMMAND_TIMEOUT_MS },
      ),
      ...channelTools(inputs.channelPorts ?? {}),
      ...agentStateTools(this.statePorts(inputs.threadId, people)),
    ];
  }

  /** The seeds' middleware stack for this run, from the team's settings and the run's ports. */
  private middlewareOptions(
    inputs: AgentRunInputs,
    run: {
      model: ResolvedModel;
      people: RunPeopleTracker;
      caravelTools: CaravelTool[];
      alwaysCreatePrs: boolean;
    },
  ): MiddlewareStackOptions {
    const s = this.settings;
    return {
      threadId: inputs.threadId,
      run: { runId: inputs.runId, promptMessageId: promptMessageId(inputs.runId) },
      ports: this.middlewarePorts(inputs, run.people),
      isSandboxUnreachable,
      pullRequestPolicy: {
        alwaysCreate: run.alwaysCreatePrs,
        changes: () => inputs.workspace.tools.diff(),
      },
      excludedTools: s.RUN_EXCLUDED_TOOLS.split(',')
        .map((name) => name.trim())
        .filter((name) => name !== ''),
      planMode: {
        initialMode: s.RUN_INITIAL_MODE,
        mutatingTools: mutatingToolNames(run.caravelTools),
      },
      modelCallLimit: s.RUN_MAX_MODEL_CALLS,
      stepLimitNoticeAt: Math.max(1, Math.floor(s.RUN_MAX_MODEL_CALLS / 10)),
      replyToolName: 'reply_to_user',
      isTrustedAuthor: inputs.isTrustedAuthor,
      circuitBreakerThreshold: 3,
      primaryModel: { provider: run.model.provider, modelId: run.model.modelId },
      modelCallTimeoutMs: s.RUN_MODEL_TIMEOUT_MS,
      modelRetries: s.RUN_MODEL_RETRIES,
      ...this.loopDiscipline(run.model, inputs),
    };
  }

  private middlewarePorts(
    inputs: AgentRunInputs,
    people: RunPeopleTracker,
  ): MiddlewareStackOptions['ports'] {
    return {
      agentsFiles: new SandboxAgentsFileFinder(inputs.workspace.sandbox),
      queue: people.following(inputs.queue),
      userInstructions: instructionsLookup(this.instructions),
      notifier: inputs.notifier,
      events: inputs.events,
      clock: systemClock,
      preparation: this.preparation(inputs),
      ...(inputs.assistantStatus ? { assistantStatus: inputs.assistantStatus } : {}),
    };
  }

  /** The base prompt, the repository's AGENTS.md, and the pull-request policy when it applies. */
  private async systemPrompt(inputs: AgentRunInputs, alwaysCreatePrs: boolean): Promise<string> {
    const agentsMd = await inputs.workspace.sandbox.readFile('AGENTS.md').catch(() => undefined);
    return [
      buildSystemPrompt({ repositoryInstructions: agentsMd }),
      ...(alwaysCreatePrs ? [ALWAYS_CREATE_PRS] : []),
    ].join('\n\n');
  }

  /** The sandbox check and turn checkpoint before the run's first model call. */
  private preparation(inputs: AgentRunInputs): RunPreparationPort {
    const { broker } = inputs.workspace;
    return {
      ensureSandbox: async () => {
        await broker.ping(inputs.threadId);
      },
      snapshotTurn: async (messageId) => {
        await broker.snapshotTurn(inputs.threadId, messageId);
      },
      // The run stops after this message (its sandbox is gone): it is the run's failure notice.
      notifyUser: (text) => this.sandboxLoss.post(inputs.channel, inputs.runId, text),
    };
  }

  /** Who asked, and who owns the thread (the first requester claims it). */
  private async people(inputs: AgentRunInputs): Promise<RunPeopleTracker> {
    const requester = inputs.requestedBy ?? null;
    const owner = requester
      ? await this.plans.claimOwner(inputs.threadId, requester)
      : await this.plans.ownerOf(inputs.threadId);
    return new RunPeopleTracker(requester, owner);
  }

  /** Plans, the run's people, user instructions and platform issues, bound to this run. */
  private statePorts(threadId: string, people: RunPeopleTracker): AgentStatePorts {
    return {
      people,
      plans: {
        save: async (plan) => this.plans.save({ threadId, ...plan }),
        approveLatest: async (approval) => {
          const approved = await this.plans.approveLatest({ threadId, ...approval });
          if (!approved)
            throw new AppError('NOT_FOUND', 'This thread has no saved plan to approve.');
          return approved;
        },
      },
      userInstructions: {
        save: async (subject, text) => void (await this.instructions.save(subject, text)),
      },
      platformIssues: {
        report: (issue) => {
          const id = randomUUID();
          this.log.warn(
            `platform issue ${id} (${issue.severity}) on thread ${threadId}: ${issue.title}: ${issue.description}`,
          );
          return Promise.resolve({ id });
        },
      },
    };
  }

  /** SWE-agent's requery rules and run limits, from the team's settings. */
  private loopDiscipline(
    model: ResolvedModel,
    inputs: AgentRunInputs,
  ): Pick<MiddlewareStackOptions, 'requery' | 'runLimits'> {
    const s = this.settings;
    return {
      requery: {
        validator: {
          blocklist: CARAVEL_BLOCKLIST,
          multilineCommands: [],
          syntaxChecker: sandboxSyntaxChecker(inputs.workspace.sandbox),
        },
        maxRequeries: s.RUN_MAX_REQUERIES,
      },
      runLimits: {
        limits: {
          maxCostUsd: inputs.budgetUsd ?? s.RUN_BUDGET_USD,
          maxWallTimeMs: s.RUN_MAX_WALL_TIME_MS,
          maxInputTokens: contextWindowOf(model),
        },
        execution: {
          maxTotalExecutionSeconds: s.RUN_MAX_COMMAND_SECONDS,
          maxConsecutiveTimeouts: s.RUN_MAX_CONSECUTIVE_TIMEOUTS,
        },
        stuckThreshold: s.RUN_STUCK_THRESHOLD,
        pricing: pricingFor(model),
        promptMessageId: promptMessageId(inputs.runId),
      },
    };
  }
}
