import type { Sandbox, SandboxProvider } from '@caravel/sandbox';
import { defineTool, type CaravelTool } from '@caravel/tools';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { z } from 'zod';
import { sessionFailure } from '../agent/agent-failure.js';
import { sessionAgent, sessionTools } from '../agent/session-agent.js';
import { summaryLine, type TaskValidation } from '../validate/validation-result.js';
import {
  completionTaskMessage,
  COMPLETION_SYSTEM_PROMPT,
  type CompletionPromptInput,
} from './completion-prompt.js';
import {
  copyTaskIn,
  editableFingerprint,
  syncEditableFiles,
  tailOf,
} from './completion-workspace.js';

interface CompletionState {
  last?: TaskValidation;
  fingerprint?: string;
}

/** What the skeleton-completion agent works with. */
export interface CompletionInput extends CompletionPromptInput {
  readonly model: BaseChatModel;
  readonly provider: SandboxProvider;
  /** The host directory of a sandbox's workspace (for the providers shipped: `<rootDir>/<id>/workspace`). */
  readonly hostWorkspace: (sandboxId: string) => string;
  readonly taskDir: string;
  /** A clone holding the PR head, exported into the workspace's repo/. */
  readonly repoPath: string;
  readonly headSha: string;
  /** Validates the task directory (NOP 0 / Oracle 1). */
  readonly validate: (taskDir: string) => Promise<TaskValidation>;
  /** Most model calls the agent may make (default 40). */
  readonly maxModelCalls?: number;
  /** Abandons the session (a per-PR deadline): it rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** What the agent's session ended with. */
export interface CompletionOutcome {
  /** The last validation the agent ran, if any. */
  readonly lastValidation?: TaskValidation;
  /** The editable files' fingerprint when that validation ran. */
  readonly validatedFingerprint?: string;
  /** Why the session ended early (an agent error), if it did. */
  readonly error?: string;
}

function validationReport(result: TaskValidation, tails: string): string {
  return `${summaryLine(result)}\n${result.passed ? 'Validation passed: call finish.' : 'Validation failed.'}\n${tails}`;
}

function agentTools(
  sandbox: Sandbox,
  input: CompletionInput,
  state: CompletionState,
): CaravelTool[] {
  const validateTool = defineTool({
    name: 'validate_task',
    description:
      'Build the task environment and run the NOP and Oracle trials; reports both rewards and the end of the logs.',
    effect: 'read',
    input: z.strictObject({}),
    run: async () => {
      await syncEditableFiles(sandbox, input.taskDir);
      state.last = await input.validate(input.taskDir);
      state.fingerprint = await editableFingerprint(input.taskDir);
      return validationReport(state.last, await tailOf(state.last));
    },
    observe: (text: string) => text,
  });
  return sessionTools(
    sandbox,
    [validateTool],
    'once validate_task passed (or when you cannot make it pass)',
  );
}

/**
 * Runs Caravel's agent over the task skeleton in a sandbox: it reads the repository, fills in the
 * Dockerfile and the test command, and calls `validate_task` until NOP scores 0 and Oracle 1.
 * The edited files are copied back to the task directory. A rate limit from the model aborts
 * (RATE_LIMITED); any other agent failure ends the session and leaves the verdict to the final
 * validation.
 */
export async function completeSkeleton(input: CompletionInput): Promise<CompletionOutcome> {
  const sandbox = await input.provider.create({ defaultTimeoutMs: 600_000 });
  const state: CompletionState = {};
  try {
    await copyTaskIn(
      sandbox,
      input.hostWorkspace(sandbox.id),
      input.taskDir,
      input.repoPath,
      input.headSha,
    );
    const agent = sessionAgent(
      input.model,
      agentTools(sandbox, input, state),
      COMPLETION_SYSTEM_PROMPT,
    );
    const calls = input.maxModelCalls ?? 40;
    const error = await agent
      .invoke(
        { messages: [{ role: 'user', content: completionTaskMessage(input) }] },
        { recursionLimit: calls * 2 + 1, ...(input.signal ? { signal: input.signal } : {}) },
      )
      .then(() => undefined, sessionFailure);
    input.signal?.throwIfAborted();
    await syncEditableFiles(sandbox, input.taskDir);
    return {
      ...(state.last
        ? { lastValidation: state.last, validatedFingerprint: state.fingerprint ?? '' }
        : {}),
      ...(error ? { error } : {}),
    };
  } finally {
    await sandbox.close().catch(() => undefined);
    await input.provider.delete(sandbox.id).catch(() => undefined);
  }
}
