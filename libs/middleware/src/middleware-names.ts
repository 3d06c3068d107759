/**
 * The canonical order of the agent's middleware stack, outermost first (as the seeds give it).
 *
 * LangChain composes `wrapModelCall` / `wrapToolCall` so the first entry is the outermost wrapper,
 * runs `beforeModel` hooks first-to-last and `afterModel` / `afterAgent` hooks last-to-first.
 */
export const MIDDLEWARE_ORDER = [
  'sanitize-tool-inputs',
  'model-call-limit',
  'tool-errors',
  'scoped-agents-md',
  'message-queue',
  'ensure-no-empty-message',
  'step-limit-notice',
  'sandbox-circuit-breaker',
  'model-fallback',
  'strip-empty-thinking',
  'model-call-timeout',
] as const;

/** The name of one middleware of the stack. */
export type MiddlewareName = (typeof MIDDLEWARE_ORDER)[number];
