import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { resolveModel, type ResolvedModel } from '@caravel/agent';
import type { ThreadOptions } from '@caravel/contracts';
import type { TeamDefaultsRow, UserProfileRow } from '@caravel/db';
import { AppError, isAppError } from '@caravel/errors';
import type { FallbackModel } from '@caravel/middleware';
import { Inject, Injectable } from '@nestjs/common';
import { AGENT_RUNNER_CONFIG, type AgentRunnerConfig } from '../agent-runner.config.js';
import { AgentKitLoader } from './agent-kit.loader.js';

/**
 * The models the runner's agents talk to: resolved by precedence (the thread's choice, the
 * requester's profile, the team's default: the dashboard's `team_defaults`, else the
 * environment's) and built with the team's provider keys. A relative
 * `scripted:`/`replay:` file resolves against the configured file root unless told otherwise.
 * Building a model loads the providers' SDKs ({@link AgentKitLoader}) the first time.
 */
@Injectable()
export class RunModels {
  private readonly models: AgentRunnerConfig['models'];

  constructor(
    @Inject(AGENT_RUNNER_CONFIG) config: AgentRunnerConfig,
    @Inject(AgentKitLoader) private readonly kit: AgentKitLoader,
  ) {
    this.models = config.models;
  }

  /** The run's model by precedence: the thread's, the person's profile, the team's, the env's. */
  resolve(
    options: ThreadOptions,
    profile: UserProfileRow | null = null,
    saved: TeamDefaultsRow | null = null,
  ): ResolvedModel {
    const team = saved?.model ?? this.models.teamDefault;
    // The team's saved effort is for the team's saved model only.
    const teamEffort = saved?.model ? saved.reasoningEffort : null;
    const thread = { model: options.model ?? null, effort: options.reasoningEffort ?? null };
    const own = profile ? { model: profile.model, effort: profile.reasoningEffort } : null;
    const fallback = options.model ?? profile?.model ?? undefined;
    if (!team && !fallback) {
      throw new AppError(
        'CONFIG_INVALID',
        'no model configured: set CARAVEL_MODEL, a model in your profile, or one for the thread',
      );
    }
    const teamLevel = { model: team ?? fallback ?? '', effort: teamEffort };
    return resolveModel({ thread, profile: own, team: teamLevel });
  }

  /**
   * The model a coding run falls back to once its own failed after its retries: the thread's
   * `fallbackModel`, else the requester's profile's, else the team's (saved in the dashboard,
   * else `CARAVEL_FALLBACK_MODEL`);
   * none when none is set, or when its provider has no key here (never a cross-provider surprise:
   * the distributed runner refuses to start on a team fallback without its key; a thread's or a
   * profile's is skipped).
   */
  async fallbackFor(
    options: ThreadOptions,
    fileRoot = this.models.fileRoot,
    profile: Pick<UserProfileRow, 'fallbackModel'> | null = null,
    team: Pick<TeamDefaultsRow, 'fallbackModel'> | null = null,
  ): Promise<FallbackModel | undefined> {
    const spec =
      options.fallbackModel ??
      profile?.fallbackModel ??
      team?.fallbackModel ??
      this.models.teamFallback;
    if (!spec) return undefined;
    const resolved = resolveModel({ team: { model: spec } });
    try {
      const model = await this.forAgent(resolved, fileRoot);
      return {
        provider: resolved.provider,
        modelId: resolved.modelId,
        model,
        hasCredentials: true,
      };
    } catch (error) {
      if (!isAppError(error) || error.code !== 'CONFIG_INVALID') throw error;
      return undefined;
    }
  }

  /**
   * The model the `task` tool's subagents run on: the requester's profile's, else the team's
   * (saved in the dashboard, else `CARAVEL_SUBAGENT_MODEL`), else the run's own model.
   */
  subagentFor(
    runModel: ResolvedModel,
    saved: Pick<TeamDefaultsRow, 'subagentModel'> | null = null,
    profile: Pick<UserProfileRow, 'subagentModel'> | null = null,
  ): ResolvedModel {
    const chosen = profile?.subagentModel ?? saved?.subagentModel ?? this.models.teamSubagent;
    return chosen ? resolveModel({ team: { model: chosen } }) : runModel;
  }

  /** A coding run's model: its retries and fallback are the middleware stack's. */
  async forAgent(model: ResolvedModel, fileRoot = this.models.fileRoot): Promise<BaseChatModel> {
    const { createChatModel } = await this.kit.get();
    return createChatModel(model, this.models.credentials, {
      timeoutMs: this.models.timeoutMs,
      fileRoot,
    });
  }

  /**
   * The model that reviews or chooses among the attempts of a retry-and-select run: the thread's
   * `reviewModel`, else the run's own model.
   */
  reviewModel(options: ThreadOptions): Promise<BaseChatModel> {
    return this.plainModel({ ...options, model: options.reviewModel ?? options.model });
  }

  /** The model of the read-only chat agent: the thread's own model, else the team default. */
  chatModel(options: ThreadOptions): Promise<BaseChatModel> {
    return this.plainModel(options);
  }

  /** A model called outside the middleware stack: the client itself retries. */
  private async plainModel(options: ThreadOptions): Promise<BaseChatModel> {
    const { createChatModel, MAX_CLIENT_RETRIES } = await this.kit.get();
    return createChatModel(this.resolve(options), this.models.credentials, {
      timeoutMs: this.models.timeoutMs,
      fileRoot: this.models.fileRoot,
      maxRetries: Math.min(this.models.retries, MAX_CLIENT_RETRIES),
    });
  }
}
