import {
  SandboxEdit,
  SandboxExec,
  SandboxGlob,
  SandboxGrep,
  SandboxList,
  SandboxPing,
  SandboxRead,
  SandboxRelease,
  SandboxWrite,
  type SandboxHandle,
} from '@caravel/contracts';
import type * as Port from '../sandbox.types.js';
import { randomUUID } from 'node:crypto';
import type { BrokerCallWatch } from './broker-call-watch.js';
import type { OutputStreams } from './output-streams.js';
import { callSandbox, callSandboxOnce, type SandboxRequester } from './sandbox-requester.js';

/** A command's default timeout when the caller gives none (the providers' default). */
const DEFAULT_EXEC_TIMEOUT_MS = 120_000;
/** How long past its command's timeout an `exec` waits for the broker's answer. */
const EXEC_ANSWER_SLACK_MS = 30_000;

/**
 * A thread's sandbox held by the sandbox broker, used over the bus: the same `Sandbox` interface
 * as a local provider's, so the agent's tools do not know the difference. Each call names the
 * thread; the broker finds (or reconnects) the thread's sandbox. Errors are the broker's coded
 * AppErrors, `details.reason` included.
 */
export class RpcSandbox implements Port.Sandbox {
  readonly id: string;
  readonly provider: Port.SandboxProviderName;
  readonly workdir: string;

  constructor(
    private readonly requester: SandboxRequester,
    readonly handle: SandboxHandle,
    /** Answers the broker's liveness probes while a command runs (see `SandboxCallerAlive`). */
    private readonly callerId?: string,
    /** Where this caller receives streamed output (`SandboxExecOutput`); none: no streaming. */
    private readonly streams?: OutputStreams,
    /** Where the broker's probes for a running command arrive (see `BrokerCallWatch`). */
    private readonly calls?: BrokerCallWatch,
  ) {
    this.id = handle.sandboxId;
    this.provider = handle.provider as Port.SandboxProviderName;
    this.workdir = handle.workdir;
  }

  private get threadId(): string {
    return this.handle.threadId;
  }

  async ping(): Promise<boolean> {
    const answer = await callSandbox(this.requester, SandboxPing, this.threadId, {
      threadId: this.threadId,
    }).catch(() => null);
    return answer?.alive === true;
  }

  /**
   * Runs a command on the broker. With `onOutput` (and a client that serves streamed output) the
   * command's output arrives in pieces while it runs, all before the result.
   */
  async exec(command: string, options: Port.ExecOptions = {}): Promise<Port.ExecResult> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS;
    const stream =
      options.onOutput && this.callerId && this.streams
        ? this.streams.listen(options.onOutput)
        : undefined;
    const callId = this.callerId && this.calls ? randomUUID() : undefined;
    try {
      const answer = callSandbox(
        this.requester,
        SandboxExec,
        this.threadId,
        {
          threadId: this.threadId,
          command,
          timeoutMs,
          ...(options.env ? { env: { ...options.env } } : {}),
          ...(this.callerId ? { callerId: this.callerId } : {}),
          ...(callId ? { callId } : {}),
          ...(stream ? { streamId: stream.streamId } : {}),
        },
        timeoutMs + EXEC_ANSWER_SLACK_MS,
      );
      return await (callId && this.calls ? this.calls.watch(callId, answer) : answer);
    } finally {
      stream?.close();
    }
  }

  async readFile(path: string): Promise<string> {
    const { threadId } = this;
    return (await callSandbox(this.requester, SandboxRead, threadId, { threadId, path })).content;
  }

  async writeFile(path: string, content: string | Uint8Array): Promise<void> {
    const { threadId } = this;
    const encoded =
      typeof content === 'string'
        ? { content, encoding: 'utf8' as const }
        : { content: Buffer.from(content).toString('base64'), encoding: 'base64' as const };
    await callSandboxOnce(this.requester, SandboxWrite, threadId, { threadId, path, ...encoded });
  }

  editFile(
    path: string,
    oldText: string,
    newText: string,
    options: Port.EditFileOptions = {},
  ): Promise<{ replacements: number }> {
    const { threadId } = this;
    return callSandboxOnce(this.requester, SandboxEdit, threadId, {
      threadId,
      path,
      oldText,
      newText,
      ...(options.replaceAll === undefined ? {} : { replaceAll: options.replaceAll }),
    });
  }

  listFiles(path?: string, options: Port.ListFilesOptions = {}): Promise<Port.ListFilesResult> {
    const { threadId } = this;
    return callSandbox(this.requester, SandboxList, threadId, {
      threadId,
      ...(path === undefined ? {} : { path }),
      ...options,
    });
  }

  async glob(pattern: string, options: { maxResults?: number } = {}): Promise<string[]> {
    const { threadId } = this;
    const answer = await callSandbox(this.requester, SandboxGlob, threadId, {
      threadId,
      pattern,
      ...options,
    });
    return answer.paths;
  }

  grep(pattern: string, options: Port.GrepOptions = {}): Promise<Port.GrepResult> {
    const { threadId } = this;
    return callSandbox(this.requester, SandboxGrep, threadId, { threadId, pattern, ...options });
  }

  /** Ends the thread's session on the broker; the sandbox and its work stay. */
  async close(): Promise<void> {
    const { threadId } = this;
    await callSandbox(this.requester, SandboxRelease, threadId, { threadId });
  }
}
