import {
  SandboxAcquire,
  SandboxExec,
  SandboxGitCommit,
  SandboxGitDiff,
  SandboxGitPush,
  SandboxRecreate,
  type RepositoryRef,
  type SandboxHandle,
} from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import type { Bus } from '@caravel/messaging';
import { sandboxAcquires, sandboxExecDuration, startTimer } from '@caravel/metrics';
import { BUS } from '@caravel/platform';
import {
  HOOKLESS_GIT_ENV,
  brokerStopping,
  replacementNotAllowed,
  SandboxLifecycle,
  ToolSandboxAdapter,
  shellQuote,
  type AcquiredSandbox,
  type ExecResult,
  type Sandbox,
} from '@caravel/sandbox';
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { SANDBOX_BROKER_CONFIG, type SandboxBrokerConfig } from '../sandbox-broker.config.js';
import { whileCallerAlive } from './caller-watch.js';
import { OutputRelay } from './output-relay.js';
import { RequestOutcomes } from './request-outcomes.js';
import { WorkspaceHost } from './workspace-host.js';

type AcquireRequest = ReturnType<typeof SandboxAcquire.parseRequest>;
type RecreateRequest = ReturnType<typeof SandboxRecreate.parseRequest>;
type ExecRequest = ReturnType<typeof SandboxExec.parseRequest>;
type PushRequest = ReturnType<typeof SandboxGitPush.parseRequest>;
type CommitRequest = ReturnType<typeof SandboxGitCommit.parseRequest>;
type DiffRequest = ReturnType<typeof SandboxGitDiff.parseRequest>;
/** Who waits on a long request, and which call it is (both absent: an older client). */
type WatchedCall = { callerId?: string | undefined; callId?: string | undefined };

/**
 * The broker's decisions per request: lifecycle (through {@link SandboxLifecycle}), commands
 * watched for a vanished caller (their output streamed to it when asked), and the git work the
 * runner needs (commit, diff, push).
 */
@Injectable()
export class SandboxBrokerService implements OnModuleDestroy {
  private readonly log = new Logger('SandboxBroker');
  private readonly relays = new Set<OutputRelay>();
  private readonly outcomes = new RequestOutcomes();
  /** Set when the broker starts shutting down: from then on it refuses work at once. */
  private stopping = false;

  constructor(
    @Inject(SandboxLifecycle) private readonly lifecycle: SandboxLifecycle,
    @Inject(WorkspaceHost) private readonly host: WorkspaceHost,
    @Inject(BUS) private readonly bus: Bus,
    @Inject(SANDBOX_BROKER_CONFIG) private readonly config: SandboxBrokerConfig,
  ) {}

  /** Runs a request that changes something once per `requestId` (see {@link RequestOutcomes}). */
  once<T>(requestId: string | undefined, work: () => Promise<T>): Promise<T> {
    return this.outcomes.once(requestId, work);
  }

  async acquire(request: AcquireRequest): Promise<SandboxHandle> {
    this.refuseWhileStopping('setting up the sandbox');
    if (request.allowReplacement && request.purpose !== 'reviewer') {
      throw replacementNotAllowed(request.threadId);
    }
    try {
      // A setup may clone for minutes: probing the caller names the call, so the caller sends
      // it again soon if this broker dies meanwhile (a caller gone changes nothing here).
      const handle = await this.probingCaller(request, () => this.acquireFor(request));
      sandboxAcquires.inc({ outcome: 'ok' });
      return handle;
    } catch (error) {
      sandboxAcquires.inc({ outcome: 'failed' });
      throw error;
    }
  }

  private async acquireFor(request: AcquireRequest): Promise<SandboxHandle> {
    if (request.startRef && (request.startFrom || !request.repository)) {
      throw new AppError(
        'BAD_REQUEST',
        `startRef ${request.startRef} needs the thread's repository, and not startFrom`,
      );
    }
    await this.host.ensureReady();
    const acquired = await this.lifecycle.acquire(request.threadId, {
      setup: this.host.setupFor({ ...request, ...(await this.startingPoint(request)) }),
      ...(request.allowReplacement ? { allowReplacement: true } : {}),
    });
    return this.handle(request, acquired);
  }

  recreate(request: RecreateRequest): Promise<SandboxHandle> {
    return this.probingCaller(request, async () => {
      this.refuseWhileStopping('recreating the sandbox');
      await this.host.ensureReady();
      const acquired = await this.lifecycle.recreate(request.threadId, this.host.setupFor(request));
      this.log.log(`thread ${request.threadId} now has sandbox ${acquired.sandbox.id} (recreated)`);
      return this.handle(request, acquired);
    });
  }

  async release(threadId: string): Promise<{ released: boolean }> {
    return { released: await this.lifecycle.release(threadId) };
  }

  /** Deletes the thread's sandbox now: its work is recorded elsewhere (an attempt's trajectory). */
  async discard(threadId: string): Promise<{ discarded: boolean }> {
    const discarded = await this.lifecycle.dispose(threadId);
    if (discarded) this.log.log(`thread ${threadId}: sandbox discarded`);
    return { discarded };
  }

  /** The sandbox a new one starts from, when the request names a thread to start from. */
  private async startingPoint(request: AcquireRequest): Promise<{ fromSandbox?: string }> {
    if (!request.startFrom) return {};
    return {
      fromSandbox: await this.lifecycle.use(request.startFrom, (s) => Promise.resolve(s.id)),
    };
  }

  async ping(threadId: string): Promise<{ threadId: string; provider: string; alive: boolean }> {
    try {
      return await this.lifecycle.use(threadId, async (sandbox) => ({
        threadId,
        provider: sandbox.provider,
        alive: await sandbox.ping(),
      }));
    } catch {
      return {
        threadId,
        provider: this.lifecycle.cached(threadId)?.provider ?? 'none',
        alive: false,
      };
    }
  }

  /**
   * Runs a command for its caller. With a `streamId` its output goes to the caller while it runs,
   * every piece delivered before this returns the (capped, shaped) result.
   */
  async exec(request: ExecRequest): Promise<ExecResult> {
    const { threadId, command, timeoutMs, env, callerId, callId, streamId } = request;
    const relay = callerId && streamId ? new OutputRelay(this.bus, callerId, streamId) : undefined;
    if (relay) this.relays.add(relay);
    const options = {
      ...(timeoutMs ? { timeoutMs } : {}),
      ...(env ? { env } : {}),
      ...(relay ? { onOutput: (text: string) => relay.push(text) } : {}),
    };
    const elapsed = startTimer();
    let outcome = 'failed';
    // Probed from the request's arrival, before a reconnect or a wait for the thread's sandbox:
    // the caller hears of the call at once. A caller gone before the command starts stops it
    // from starting; one gone while it runs has it abandoned.
    let running: Sandbox | undefined;
    let callerGone = false;
    try {
      const result = await whileCallerAlive(
        this.bus,
        { callerId, callId },
        this.config.sandbox.callerProbeMs,
        this.use(threadId, (sandbox) => {
          if (callerGone) throw commandCallerGone(threadId);
          running = sandbox;
          return sandbox.exec(command, options);
        }),
        async () => {
          callerGone = true;
          if (!running) return;
          this.log.warn(`thread ${threadId}: the caller of a command is gone; abandoning it`);
          await this.lifecycle.abandon(threadId, running);
        },
      );
      await relay?.finish();
      this.refuseWhileStopping(`the command \`${command.slice(0, 80)}\``);
      outcome = result.timedOut ? 'timed_out' : 'ok';
      return result;
    } catch (error) {
      // A command the shutdown stopped did not end on its own: its result, or its session's
      // closing, would tell the agent otherwise. The caller is told to ask again.
      this.refuseWhileStopping(`the command \`${command.slice(0, 80)}\``);
      throw error;
    } finally {
      sandboxExecDuration.observe({ outcome }, elapsed());
      relay?.stop();
      if (relay) this.relays.delete(relay);
    }
  }

  /** Commands whose output is being streamed right now (none once they all returned). */
  get streamsInFlight(): number {
    return this.relays.size;
  }

  /** Runs `work` on the thread's sandbox (reconnecting to it if this process has none open). */
  on<T>(threadId: string, work: (sandbox: Sandbox) => Promise<T>): Promise<T> {
    return this.use(threadId, work);
  }

  /**
   * The thread's sandbox for `work`, refused while the broker shuts down: its sessions are
   * closing, and a reconnect now would open one nobody closes.
   */
  private async use<T>(threadId: string, work: (sandbox: Sandbox) => Promise<T>): Promise<T> {
    this.refuseWhileStopping(`thread ${threadId}'s request`);
    return this.lifecycle.use(threadId, work);
  }

  private refuseWhileStopping(what: string): void {
    if (this.stopping) throw brokerStopping(what);
  }

  /**
   * Long work other than a command (git, a recreate's clone), probing its caller like a command:
   * the probes name the call, so the caller fails it soon if this broker dies. A caller gone
   * meanwhile changes nothing: the work finishes, and its outcome is kept for a retry.
   */
  private probingCaller<T>(call: WatchedCall, work: () => Promise<T>): Promise<T> {
    const { callerId, callId } = call;
    if (callId === undefined) return work();
    return whileCallerAlive(
      this.bus,
      { callerId, callId },
      this.config.sandbox.callerProbeMs,
      work(),
      () => Promise.resolve(),
    );
  }

  commitAll(request: CommitRequest): Promise<{ commitSha: string | null }> {
    return this.probingCaller(request, () => this.commit(request.threadId, request.message));
  }

  private commit(threadId: string, message: string): Promise<{ commitSha: string | null }> {
    return this.use(threadId, async (sandbox) => {
      // The bot's commit runs no hook and no filesystem monitor of the repository's.
      const options = { timeoutMs: 60_000, env: HOOKLESS_GIT_ENV };
      const status = await sandbox.exec('git add -A && git status --porcelain', options);
      if (status.exitCode !== 0) throw gitFailed('git add', status.output);
      if (status.output.trim() === '') return { commitSha: null };
      const commit = await sandbox.exec(
        `git commit --quiet --no-verify -m ${shellQuote(message)} && git rev-parse HEAD`,
        options,
      );
      if (commit.exitCode !== 0) throw gitFailed('git commit', commit.output);
      return { commitSha: commit.output.trim().split('\n').pop() ?? null };
    });
  }

  diffSince(request: DiffRequest): Promise<{ diff: string }> {
    const { threadId, baseRef } = request;
    return this.probingCaller(request, () =>
      this.use(threadId, async (sandbox) => ({
        diff: await new ToolSandboxAdapter(sandbox, baseRef).diff(),
      })),
    );
  }

  /**
   * Publishes the thread's branch: commits everything first when given a message, then pushes
   * the branch to the thread's repository as the caller names it (on record), never to a remote
   * the workdir names.
   */
  push(request: PushRequest) {
    const { threadId, branch, repository, commitMessage } = request;
    return this.probingCaller(request, async () => {
      const commitSha = commitMessage
        ? (await this.commit(threadId, commitMessage)).commitSha
        : null;
      const pushed = await this.use(threadId, (sandbox) =>
        this.host.push(sandbox.id, branch, repository),
      );
      return { pushed: pushed.pushed, origin: pushed.origin, commitSha };
    });
  }

  /**
   * Shutdown: refuses new work, kills the clones still running (their setups fail and release
   * their threads' locks), and ends every session (a running command is killed and its caller
   * told to ask again). The sandboxes and their work stay for the next broker.
   */
  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    this.host.mirrors.stop();
    await this.lifecycle.closeAll();
    await this.host.close();
  }

  private async handle(
    request: { branch: string; repository?: RepositoryRef | undefined },
    acquired: AcquiredSandbox,
  ): Promise<SandboxHandle> {
    const { sandbox } = acquired;
    return {
      threadId: acquired.binding.threadId,
      sandboxId: sandbox.id,
      provider: sandbox.provider,
      workdir: sandbox.workdir,
      outcome: acquired.outcome,
      branch: request.branch,
      baseCommit: await headCommit(sandbox),
      origin: this.host.mirrors.remoteUrl(request.repository),
    };
  }
}

/** The sandbox's HEAD, asked inside it (the host never reads a workdir's repository). */
async function headCommit(sandbox: Sandbox): Promise<string> {
  const head = await sandbox.exec('git rev-parse --verify HEAD', {
    timeoutMs: 60_000,
    env: HOOKLESS_GIT_ENV,
  });
  const commit = head.output.trim();
  if (head.exitCode !== 0 || !/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commit)) {
    throw gitFailed('git rev-parse HEAD', head.output);
  }
  return commit;
}

function gitFailed(what: string, output: string) {
  return new AppError('PRECONDITION_FAILED', `${what} failed: ${output.trim().slice(-2000)}`);
}

/** A command whose caller went away before it started: it is not started at all. */
function commandCallerGone(threadId: string) {
  return new AppError(
    'PRECONDITION_FAILED',
    `thread ${threadId}: the caller of a command went away before it started; it was not run`,
  );
}
