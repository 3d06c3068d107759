import { createMiddleware, type AgentMiddleware } from 'langchain';
import type { ShellPolicyViolation } from './github-shell-policy.js';
import type { MiddlewareEventSink } from './ports.js';
import { errorToolMessage } from './tool-messages.js';

/** The tools whose `command` argument a shell guard reads (default: `execute`). */
export const DEFAULT_SHELL_TOOLS: readonly string[] = ['execute'];

/** What one shell guard is made of. */
export interface ShellGuardSpec {
  name: string;
  shellToolNames?: readonly string[];
  /** The violation `command` would commit, or null to let it run. */
  detect(command: string): ShellPolicyViolation | null;
  /** What the model should do instead, appended to the refusal. */
  instead: string;
  events: MiddlewareEventSink;
}

/**
 * A middleware that refuses shell tool calls whose command breaks a policy, before anything runs:
 * the call is answered with an error message naming what was refused and what to do instead.
 */
export function shellGuardMiddleware(spec: ShellGuardSpec): AgentMiddleware {
  const shells = new Set(spec.shellToolNames ?? DEFAULT_SHELL_TOOLS);
  return createMiddleware({
    name: spec.name,
    wrapToolCall: async (request, handler) => {
      const command: unknown = request.toolCall.args['command'];
      if (!shells.has(request.toolCall.name) || typeof command !== 'string') {
        return handler(request);
      }
      const violation = spec.detect(command);
      if (violation === null) return handler(request);
      spec.events.emit({ type: 'shell_command_blocked', guard: spec.name, what: violation.what });
      return errorToolMessage(
        request.toolCall,
        `Error: the command was not run: ${violation.what} is not allowed from the shell. ${spec.instead}`,
      );
    },
  });
}
