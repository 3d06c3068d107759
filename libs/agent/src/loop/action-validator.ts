import { findBlockedCommand, DEFAULT_BLOCKLIST, type BlocklistConfig } from './blocklist.js';
import { guardMultilineCommands, type MultilineCommand } from './multiline-guard.js';
import { DEFAULT_LOOP_TEMPLATES, renderTemplate, type LoopTemplates } from './loop-templates.js';

/** What the runner's parser made of one model answer. */
export type ParsedOutput =
  | { ok: true; thought: string; action: string }
  | { ok: false; errorMessage: string; errorCode?: string };

/** Why a model answer cannot be executed; each kind is requeried (SWE-agent §2.3). */
export type OutputFailure =
  | { kind: 'format'; message: string; errorCode: string | null }
  | { kind: 'blocked'; action: string; command: string; rule: string }
  | { kind: 'syntax'; action: string; stdout: string; stderr: string }
  | { kind: 'multiline'; action: string; command: string; endName: string; line: number }
  | { kind: 'content_policy'; message: string };

/** The result of `bash -n` on a command. */
export type SyntaxCheckResult = { ok: true } | { ok: false; stdout: string; stderr: string };

/** Port: checks a command's bash syntax without running it (`bash -n` in the sandbox). */
export interface SyntaxChecker {
  check(command: string): Promise<SyntaxCheckResult>;
}

/** Either the action to execute, or why the answer must be requeried. */
export type ActionValidation =
  { ok: true; thought: string; action: string } | { ok: false; failure: OutputFailure };

/** What the validator checks. */
export interface ActionValidatorConfig {
  blocklist: BlocklistConfig;
  multilineCommands: readonly MultilineCommand[];
  /** Omit to skip the syntax check (e.g. a tool-calling model whose tools are not bash). */
  syntaxChecker?: SyntaxChecker;
}

/** The parse error code a runner uses when the provider refused the answer on content policy. */
export const CONTENT_POLICY_ERROR_CODE = 'content_policy';

/** Whether the model asked to stop without submitting (SWE-agent's `exit` action). */
export function isExitAction(action: string): boolean {
  return action.trim() === 'exit';
}

/**
 * Checks a parsed answer in SWE-agent's order: parse failure, blocklist, multi-line guard,
 * then `bash -n`. The `exit` action passes untouched (the runner ends the run with
 * `exit_command`). A valid action comes back guarded and stripped.
 */
export async function validateAction(
  parsed: ParsedOutput,
  config: ActionValidatorConfig = { blocklist: DEFAULT_BLOCKLIST, multilineCommands: [] },
): Promise<ActionValidation> {
  if (!parsed.ok && parsed.errorCode === CONTENT_POLICY_ERROR_CODE) {
    return { ok: false, failure: { kind: 'content_policy', message: parsed.errorMessage } };
  }
  if (!parsed.ok) {
    return {
      ok: false,
      failure: {
        kind: 'format',
        message: parsed.errorMessage,
        errorCode: parsed.errorCode ?? null,
      },
    };
  }
  const { thought, action } = parsed;
  const blocked = findBlockedCommand(action, config.blocklist);
  if (blocked !== null) return { ok: false, failure: { kind: 'blocked', action, ...blocked } };
  if (isExitAction(action)) return { ok: true, thought, action: 'exit' };
  const guarded = guardMultilineCommands(action, config.multilineCommands);
  if (!guarded.ok) {
    const { command, endName, line } = guarded;
    return { ok: false, failure: { kind: 'multiline', action, command, endName, line } };
  }
  const command = guarded.action.trim();
  if (config.syntaxChecker !== undefined) {
    const syntax = await config.syntaxChecker.check(command);
    if (!syntax.ok)
      return {
        ok: false,
        failure: { kind: 'syntax', action, stdout: syntax.stdout, stderr: syntax.stderr },
      };
  }
  return { ok: true, thought, action: command };
}

/**
 * The user message that tells the model what was wrong with its answer, or `null` for a
 * content-policy refusal (the same history is sent again to resample).
 */
export function requeryMessage(
  failure: OutputFailure,
  templates: LoopTemplates = DEFAULT_LOOP_TEMPLATES,
): string | null {
  switch (failure.kind) {
    case 'format':
      return renderTemplate(templates.formatError, { error_message: failure.message });
    case 'blocked':
      return renderTemplate(templates.blockedAction, {
        action: failure.command,
        rule: failure.rule,
      });
    case 'syntax':
      return renderTemplate(templates.syntaxError, {
        action: failure.action,
        bash_stdout: failure.stdout,
        bash_stderr: failure.stderr,
      });
    case 'multiline':
      return renderTemplate(templates.multilineUnterminated, {
        command: failure.command,
        end_name: failure.endName,
      });
    case 'content_policy':
      return null;
  }
}
