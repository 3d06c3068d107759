import type { RequestDefinition } from '@caravel/contracts';
import type { z } from 'zod';

/**
 * What the sandbox RPC client needs of a message bus: request/reply and serving a subject. The
 * messaging library's `Bus` satisfies it as is (JetStream or embedded).
 */
export interface SandboxRequester {
  request<T = unknown>(
    subject: string,
    payload: unknown,
    options?: { timeoutMs?: number },
  ): Promise<T>;
  serve(
    subject: string,
    handler: (request: unknown, subject: string) => Promise<unknown>,
  ): Promise<{ drain(): Promise<void> }>;
}

/** Default wait for an answer to anything but `exec` (which waits for its command). */
export const DEFAULT_RPC_TIMEOUT_MS = 60_000;

/** Sends one sandbox request on `<service>.<key>.<op>` and validates the answer. */
export async function callSandbox<TReq extends z.ZodObject, TRes extends z.ZodType>(
  requester: SandboxRequester,
  definition: RequestDefinition<TReq, TRes>,
  key: string,
  payload: z.input<TReq>,
  timeoutMs = DEFAULT_RPC_TIMEOUT_MS,
): Promise<z.output<TRes>> {
  const raw = await requester.request(definition.subjectFor(key), payload, { timeoutMs });
  return definition.parseResponse(raw);
}
