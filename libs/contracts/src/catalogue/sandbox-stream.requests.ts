import { z } from 'zod';
import { defineRequest } from '../define-request.js';

// Streamed output of a sandbox command. The client asks for it by giving `SandboxExec` a
// `streamId` (with its `callerId`); while the command runs, the broker sends the pieces to the
// client on `sandbox-caller.<callerId>.output`, one at a time, each answered before the next
// and all before the `SandboxExec` reply, so they arrive in order and ahead of the result.

/** The largest piece the broker sends at once (characters of safe text). */
export const SANDBOX_OUTPUT_PIECE_MAX_CHARS = 65_536;

/** A piece of a running command's output, for the client that asked to see it. */
export const SandboxExecOutput = defineRequest({
  service: 'sandbox-caller',
  op: 'output',
  description: "A piece of a running command's output, sent to the client waiting on it.",
  request: z.object({
    callerId: z.uuid(),
    /** The `streamId` of the `SandboxExec` request this output belongs to. */
    streamId: z.uuid(),
    /** 0, 1, 2, ... per stream: the order the pieces were written in. */
    seq: z.number().int().nonnegative(),
    text: z.string().max(SANDBOX_OUTPUT_PIECE_MAX_CHARS),
  }),
  /** `accepted: false`: nobody waits on this stream any more; the broker stops sending. */
  response: z.object({ accepted: z.boolean() }),
});
