import type { ResolvedModel } from '@caravel/agent';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { ThreadOptions } from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import type {
  AssistantStatusPort,
  MessageQueue,
  MiddlewareEventSink,
  MiddlewareStackOptions,
  RunPreparationPort,
  StepLimitNotifier,
} from '@caravel/middleware';
import {
  agentStateTools,
  channelTools,
  curatedTools,
  mutatingToolNames,
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
  type TeamDefaultsRow,
  type UserProfileRow,
} from '@caravel/db';
import { isSandboxUnreachable, type RunBundleSession } from '@caravel/sandbox';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AGENT_RUNNER_CONFIG, type AgentRunnerConfig } from '../agent-runner.config.js';
import type { ThreadWorkspace } from '../sandbox/thread-sandbox.service.js';
import { AgentKitLoader, type AgentKit } from './agent-kit.loader.js';
import { InstructionFileFinder, type InstructionFiles } from './agents-file-finder.js';
import { CheckpointerService } from './checkpointer.service.js';
import { loopDiscipline, toolOptionsFor, type LoopDisciplineInputs } from './loop-discipline.js';
import { RunModels } from './run-models.js';
import { RunPeopleTracker } from './run-people.js';
import type { RunAgent } from './run-agent.js';
import { promptMessageId } from './run-stream.js';
import { SandboxLossNotice } from './sandbox-loss.notice.js';
import type { AgentWorkSetup } from './agent-work.js';
import type { RunWorkEvents } from './subagents.js';
import { buildSystemPrompt } from './system-prompt.js';
import { withBundleState } from './tool-bundles.js';
import { pullRequestChoices, TeamSettings } from './team-settings.js';
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
  /** Where the run pauses at its budget (`RunBudgets`); without it the budget ends the run. */
  budgetPause?: LoopDisciplineInputs['budgetPause'];
  /** Who asked for the run (`source:id`); the thread's first requester owns it (plan approval). */
  requestedBy?: string;
  /** Their words that started the run: what a tool acting on their say-so may quote. */
  request?: string;
  /** The source channel's "is working…" status (Slack threads); none when absent. */
  assistantStatus?: AssistantStatusPort;
  /** Where the run's subagents and todo list are told; without it, no `task` or `write_todos`. */
  work?: RunWorkEvents;
  /** The run's interrupt (its subagents stop with it). */
  signal?: AbortSignal;
  /** SWE-agent bundles installed in the sandbox: their commands in the prompt, their state per call. */
  toolBundles?: RunBundleSession;
  /**
   * Where the repository's AGENTS.md files are read (the root one into the system prompt, the
   * scoped ones as files are read): the repository's base on GitHub for a GitHub run, never the
   * branch the agent writes; the working tree for a local repository (`runInstructionFiles`).
   */
  instructions: InstructionFiles;
}

/** One run's agent, ready to stream, and the model it resolved to. */
export interface BuiltAgent extends RunAgent {
  model: ResolvedModel;
  /** The system prompt the agent was built with (evt.run.started carries it to the .traj). */
  systemPrompt: string;
}

/**
 * Builds the coding agent for one run: the resolved model (thread > profile > team), the curated
 * tools bound to the thread's sandbox, the ordered middleware stack and the durable checkpointer.
 * The agent holds no state of its own: it lives in checkpoints, thread records and the sandbox.
 * LangChain and the providers are loaded by the first build ({@link AgentKitLoader}).
 */
@Injectable()
export class AgentFactoryService {
  constructor(
    @Inject(AGENT_RUNNER_CONFIG) private readonly config: AgentRunnerConfig,
    @Inject(RunModels) private readonly models: RunModels,
    @Inject(CheckpointerService) private readonly checkpointer: CheckpointerService,
    @Inject(ThreadPlanRepository) private readonly plans: ThreadPlanRepository,
    @Inject(UserInstructionsRepository) private readonly instructions: UserInstructionsRepository,
    @Inject(UserProfileRepository) private readonly profiles: UserProfileRepository,
    @Inject(SandboxLossNotice) private readonly sandboxLoss: SandboxLossNotice,
    @Inject(ThreadMessageRepository) private readonly messages: ThreadMessageRepository,
    @Inject(AgentKitLoader) private readonly kit: AgentKitLoader,
    @Optional() @Inject(TeamSettings) private readonly team?: TeamSettings,
  ) {}

  private readonly log = new Logger('AgentFactory');

  async build(inputs: AgentRunInputs): Promise<BuiltAgent> {
    const kit = await this.kit.get();
    const profile = inputs.requestedBy ? await this.profiles.get(inputs.requestedBy) : null;
    const team = (await this.team?.defaults()) ?? null;
    const model = this.models.resolve(inputs.options, profile, team);
    const { alwaysCreatePrs, drafts } = pullRequestChoices(profile, team, this.config.run);
    const people = await this.people(inputs);
    const systemPrompt = await this.systemPrompt(inputs, alwaysCreatePrs);
    const runTools = withBundleState(this.tools(inputs, people, drafts), inputs.toolBundles);
    // The subagents' stacks derive from the run's, built just below (they start later).
    const run: { options?: MiddlewareStackOptions } = {};
    const stack = () => run.options as MiddlewareStackOptions;
    const subagents = this.models.subagentFor(model, team, profile);
    const caravelTools = [
      ...runTools,
      ...(await this.workTools(kit, inputs, { model: subagents, runTools, systemPrompt, stack })),
    ];
    const options = this.middlewareOptions(inputs, {
      model,
      profile,
      team,
      people,
      caravelTools,
      alwaysCreatePrs,
      fallback: await this.models.fallbackFor(inputs.options, inputs.fileRoot, profile, team),
      summarizer: await this.models.forAgent(model, inputs.fileRoot),
      kit,
    });
    run.options = options;
    const { agent, recursionLimit } = kit.createRunGraph({
      model: await this.models.forAgent(model, inputs.fileRoot),
      caravelTools,
      options,
      checkpointer: await this.checkpointer.get(),
      systemPrompt,
      maxModelCalls: this.config.run.maxModelCalls,
    });
    const opening = await openingInstructions(
      { messages: this.messages, instructions: this.instructions },
      inputs,
    );
    return {
      agent,
      model,
      systemPrompt,
      recursionLimit,
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
      ...curatedTools({ ...bound, draftPullRequests }, toolOptionsFor(this.config.run)),
      ...channelTools(inputs.channelPorts ?? {}),
      ...agentStateTools(this.statePorts(inputs.threadId, people)),
    ];
  }

  /** `write_todos` and `task` (its subagents on `model`, the subagent model), when recorded. */
  private async workTools(
    kit: AgentKit,
    inputs: AgentRunInputs,
    {
      model,
      ...run
    }: Pick<AgentWorkSetup, 'runTools' | 'systemPrompt' | 'stack'> & { model: ResolvedModel },
  ): Promise<CaravelTool[]> {
    if (!inputs.work) return [];
    return kit.agentWorkToolsFor({
      ...run,
      runId: inputs.runId,
      work: inputs.work,
      ...(inputs.signal ? { signal: inputs.signal } : {}),
      model,
      chatModel: await this.models.forAgent(model, inputs.fileRoot),
      share: this.config.run.subagentShare,
      checkpointer: await this.checkpointer.get(),
    });
  }

  /** The seeds' middleware stack for this run, from the team's configuration and the run's ports. */
  private middlewareOptions(
    inputs: AgentRunInputs,
    run: {
      model: ResolvedModel;
      profile: UserProfileRow | null;
      team: TeamDefaultsRow | null;
      people: RunPeopleTracker;
      caravelTools: CaravelTool[];
      alwaysCreatePrs: boolean;
      fallback: MiddlewareStackOptions['fallbackModel'];
      /** The run's own model again, for the summariser (a model of its own). */
      summarizer: BaseChatModel;
      kit: AgentKit;
    },
  ): MiddlewareStackOptions {
    const { run: limits, models } = this.config;
    return {
      threadId: inputs.threadId,
      run: { runId: inputs.runId, promptMessageId: promptMessageId(inputs.runId) },
      ports: this.middlewarePorts(inputs, run.people, run.kit),
      isSandboxUnreachable,
      pullRequestPolicy: {
        alwaysCreate: run.alwaysCreatePrs,
        changes: () => inputs.workspace.tools.diff(),
      },
      excludedTools: [...limits.excludedTools],
      planMode: {
        initialMode: limits.initialMode,
        mutatingTools: mutatingToolNames(run.caravelTools),
      },
      modelCallLimit: limits.maxModelCalls,
      stepLimitNoticeAt: Math.max(1, Math.floor(limits.maxModelCalls / 10)),
      replyToolName: 'reply_to_user',
      isTrustedAuthor: inputs.isTrustedAuthor,
      circuitBreakerThreshold: 3,
      primaryModel: { provider: run.model.provider, modelId: run.model.modelId },
      ...withFallback(run.fallback),
      modelCallTimeoutMs: models.timeoutMs,
      modelRetries: models.retries,
      ...loopDiscipline(this.config.run, run.model, {
        ...inputs,
        summarizer: () => new run.kit.ModelConversationSummarizer(run.summarizer),
      }),
    };
  }

  private middlewarePorts(
    inputs: AgentRunInputs,
    people: RunPeopleTracker,
    kit: AgentKit,
  ): MiddlewareStackOptions['ports'] {
    return {
      agentsFiles: new InstructionFileFinder(inputs.instructions),
      queue: people.following(inputs.queue),
      userInstructions: instructionsLookup(this.instructions),
      notifier: inputs.notifier,
      events: inputs.events,
      clock: kit.systemClock,
      preparation: this.preparation(inputs),
      ...(inputs.assistantStatus ? { assistantStatus: inputs.assistantStatus } : {}),
    };
  }

  /**
   * The base prompt, the repository's AGENTS.md and the instructions admins keep for it in the
   * dashboard, the pull-request policy when it applies, and the SWE-agent bundles' commands.
   */
  private async systemPrompt(inputs: AgentRunInputs, alwaysCreatePrs: boolean): Promise<string> {
    const agentsMd = await inputs.instructions.read('AGENTS.md').catch((error: unknown) => {
      this.log.warn(`run ${inputs.runId}: AGENTS.md could not be read: ${String(error)}`);
      return undefined;
    });
    return buildSystemPrompt({
      repositoryInstructions: agentsMd,
      dashboardInstructions: await this.team?.instructionsFor(inputs.workspace.repository),
      alwaysCreatePrs,
      toolCommands: inputs.toolBundles?.prompt,
    });
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
    return new RunPeopleTracker(requester, owner, inputs.request);
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
}

/** The fallback unit's model, when the thread or the team names one. */
function withFallback(
  fallback: MiddlewareStackOptions['fallbackModel'],
): Pick<MiddlewareStackOptions, 'fallbackModel'> {
  return fallback ? { fallbackModel: fallback } : {};
}
