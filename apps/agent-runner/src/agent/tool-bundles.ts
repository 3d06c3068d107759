import { guardMultilineCommands, type MultilineCommand } from '@caravel/agent';
import { AppError, isAppError } from '@caravel/errors';
import { RunBundleSession, type Sandbox, type ToolBundle } from '@caravel/sandbox';
import type { CaravelTool } from '@caravel/tools';
import { Logger } from '@nestjs/common';

/**
 * The bundles a runner installs in each run's sandbox, whose read-only copy the sandbox broker
 * binds at `/root/tools` (the embedded host gives both the same {@link RunBundles}).
 */
export class RunToolBundles {
  private readonly log = new Logger('RunToolBundles');

  constructor(readonly bundles: readonly ToolBundle[]) {}

  /**
   * Installs the bundles in the run's sandbox session; null when there are none. A bundle that
   * cannot be installed (a missing interpreter, a failed `install.sh`) ends the run as an
   * environment error (`exit_environment_error`), its one line kept as the reason.
   */
  async open(sandbox: Sandbox): Promise<RunBundleSession | null> {
    if (this.bundles.length === 0) return null;
    try {
      return await RunBundleSession.install(sandbox, this.bundles, (m) => this.log.warn(m));
    } catch (error) {
      if (!isAppError(error)) throw error;
      throw new AppError(error.code, error.message, {
        retryable: false,
        cause: error,
        details: { ...error.details, exitReason: 'exit_environment_error' },
      });
    }
  }
}

/**
 * The shell tool's input with SWE-agent's multi-line guard applied: a bundle command written with
 * its text and end line (`edit 2:2`, lines, `end_of_edit`) gets `<< 'end_of_edit'` so the text
 * reaches it on stdin; anything else (no such command, no end line) is left as it is.
 */
export function guardedShellInput(raw: unknown, commands: readonly MultilineCommand[]): unknown {
  const command = (raw as { command?: unknown } | null)?.command;
  if (commands.length === 0 || typeof command !== 'string') return raw;
  const guarded = guardMultilineCommands(command, commands);
  return guarded.ok ? { ...(raw as object), command: guarded.action } : raw;
}

/**
 * The run's tools, each running the bundles' state commands after its call (SWE-agent runs them
 * after every step), so the step that made the call records that state, and the shell tool
 * (`execute`) guarding multi-line bundle commands as SWE-agent does; unchanged without bundles.
 */
export function withBundleState(
  tools: CaravelTool[],
  session: RunBundleSession | undefined,
): CaravelTool[] {
  if (session === undefined) return tools;
  const multiline = session.multilineCommands;
  return tools.map((tool) => ({
    ...tool,
    invoke: async (raw, call) => {
      const input = tool.name === 'execute' ? guardedShellInput(raw, multiline) : raw;
      const result = await tool.invoke(input, call);
      if (call?.callId !== undefined) await session.captureAfter(call.callId);
      return result;
    },
  }));
}
