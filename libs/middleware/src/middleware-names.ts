/**
 * The canonical order of the agent's middleware stack, outermost first (as the seeds give it:
 * run preparation first, the PR guards after the scoped AGENTS.md reads with the verdict guard
 * right after the creation guard, the Slack status after the message queue, plan mode just inside
 * the fallback so both models see the same tools), with SWE-agent's loop discipline added where
 * it must sit: `requery` outside `run-limits`, so
 * every requeried answer is a paid call that passes the budget check, `context-window` between
 * them, so the context limit measures the prompt after summarising and eliding, and all outside the
 * fallback and the timeout, which act per call; `model-retry` inside the fallback, so a
 * rate-limited primary waits out its `retry-after` before the fallback is tried; and
 * `message-identity` innermost, so everything outside it sees Caravel's ids and the provider
 * gets its own back.
 *
 * LangChain composes `wrapModelCall` / `wrapToolCall` so the first entry is the outermost wrapper,
 * runs `beforeModel` hooks first-to-last and `afterModel` / `afterAgent` hooks last-to-first.
 */
export const MIDDLEWARE_ORDER = [
  'prepare-agent-run',
  'sanitize-tool-inputs',
  'model-call-limit',
  'tool-errors',
  'offload-tool-output',
  'exclude-tools',
  'scoped-agents-md',
  'pull-request-creation-guard',
  'pull-request-verdict-guard',
  'message-queue',
  'slack-assistant-status',
  'ensure-no-empty-message',
  'step-limit-notice',
  'sandbox-circuit-breaker',
  'requery',
  'context-window',
  'run-limits',
  'model-fallback',
  'plan-mode',
  'model-retry',
  'strip-empty-thinking',
  'model-call-timeout',
  'message-identity',
] as const;

/** The name of one middleware of the stack. */
export type MiddlewareName = (typeof MIDDLEWARE_ORDER)[number];

/**
 * A subagent's stack (the `task` tool's): the run's units in the same order, without those that
 * belong to the run as a whole. Its sandbox was prepared by the run; people's follow-ups, the
 * Slack status and the step-limit notice are the run's; a plain answer ends a subagent (it is
 * what the parent reads), so nothing nudges it to reply; the pull-request creation policy
 * guards `submit`, which it has not; plan mode is the run's (it hides `task` itself).
 */
export const SUBAGENT_MIDDLEWARE: readonly MiddlewareName[] = MIDDLEWARE_ORDER.filter(
  (name) =>
    ![
      'prepare-agent-run',
      'message-queue',
      'slack-assistant-status',
      'ensure-no-empty-message',
      'step-limit-notice',
      'pull-request-creation-guard',
      'plan-mode',
    ].includes(name),
);
