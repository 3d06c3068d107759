import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import {
  MAX_CLIENT_RETRIES,
  createChatModel,
  resolveModel,
  type ResolvedModel,
} from '@caravel/agent';
import type { ThreadOptions } from '@caravel/contracts';
import type { UserProfileRow } from '@caravel/db';
import { AppError } from '@caravel/errors';
import { Inject, Injectable } from '@nestjs/common';
import {
  AGENT_SETTINGS,
  modelCredentialsOf,
  type AgentSettings,
} from '../agent-runner.settings.js';

/**
 * The models the runner's agents talk to: resolved by precedence (the thread's choice, the
 * requester's profile, the team's `CARAVEL_MODEL`) and built with the team's provider keys. A
 * relative `scripted:`/`replay:` file resolves against `CARAVEL_FILE_ROOT` unless told otherwise.
 */
@Injectable()
export class RunModels {
  constructor(@Inject(AGENT_SETTINGS) private readonly settings: AgentSettings) {}

  /** The run's model by precedence: the thread's choice, the person's profile, the team's. */
  resolve(options: ThreadOptions, profile: UserProfileRow | null = null): ResolvedModel {
    const team = this.settings.CARAVEL_MODEL;
    const thread = { model: options.model ?? null, effort: options.reasoningEffort ?? null };
    const own = profile ? { model: profile.model, effort: profile.reasoningEffort } : null;
    const fallback = options.model ?? profile?.model ?? undefined;
    if (!team && !fallback) {
      throw new AppError(
        'CONFIG_INVALID',
        'no model configured: set CARAVEL_MODEL, a model in your profile, or one for the thread',
      );
    }
    return resolveModel({ thread, profile: own, team: { model: team ?? fallback ?? '' } });
  }

  /** A coding run's model: its retries and fallback are the middleware stack's. */
  forAgent(model: ResolvedModel, fileRoot = this.settings.CARAVEL_FILE_ROOT): BaseChatModel {
    return createChatModel(model, modelCredentialsOf(this.settings), {
      timeoutMs: this.settings.RUN_MODEL_TIMEOUT_MS,
      fileRoot,
    });
  }

  /**
   * The model that reviews or chooses among the attempts of a retry-and-select run: the thread's
   * `reviewModel`, else the run's own model.
   */
  reviewModel(options: ThreadOptions): BaseChatModel {
    return this.plainModel({ ...options, model: options.reviewModel ?? options.model });
  }

  /** The model of the read-only chat agent: the thread's own model, else the team default. */
  chatModel(options: ThreadOptions): BaseChatModel {
    return this.plainModel(options);
  }

  /** A model called outside the middleware stack: the client itself retries. */
  private plainModel(options: ThreadOptions): BaseChatModel {
    return createChatModel(this.resolve(options), modelCredentialsOf(this.settings), {
      timeoutMs: this.settings.RUN_MODEL_TIMEOUT_MS,
      fileRoot: this.settings.CARAVEL_FILE_ROOT,
      maxRetries: Math.min(this.settings.RUN_MODEL_RETRIES, MAX_CLIENT_RETRIES),
    });
  }
}
