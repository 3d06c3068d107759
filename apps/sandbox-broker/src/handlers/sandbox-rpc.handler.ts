import {
  SandboxAcquire,
  SandboxDiscard,
  SandboxEdit,
  SandboxExec,
  SandboxGitCommit,
  SandboxGitDiff,
  SandboxGitPush,
  SandboxGlob,
  SandboxGrep,
  SandboxList,
  SandboxPing,
  SandboxRead,
  SandboxRecreate,
  SandboxRelease,
  SandboxTurnDiff,
  SandboxTurnSnapshot,
  SandboxWrite,
  type RequestOf,
} from '@caravel/contracts';
import { snapshotTurn, turnDiff } from '@caravel/sandbox';
import { ServeRequest } from '@caravel/messaging';
import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { SandboxBrokerService } from '../services/sandbox-broker.service.js';

/**
 * Sandbox RPC on `sandbox.<threadId>.<op>`: call the service with the request (the transport has
 * parsed it against the catalogue), answer. A request that changes something runs once per
 * `requestId` (a retry gets the first outcome).
 */
@Controller()
export class SandboxRpcHandler {
  constructor(@Inject(SandboxBrokerService) private readonly broker: SandboxBrokerService) {}

  @ServeRequest(SandboxAcquire)
  acquire(@Payload() request: RequestOf<typeof SandboxAcquire>) {
    return this.broker.acquire(request);
  }

  @ServeRequest(SandboxRecreate)
  recreate(@Payload() request: RequestOf<typeof SandboxRecreate>) {
    return this.broker.once(request.requestId, () => this.broker.recreate(request));
  }

  @ServeRequest(SandboxRelease)
  release(@Payload() request: RequestOf<typeof SandboxRelease>) {
    return this.broker.release(request.threadId);
  }

  @ServeRequest(SandboxDiscard)
  discard(@Payload() request: RequestOf<typeof SandboxDiscard>) {
    const { requestId, threadId } = request;
    return this.broker.once(requestId, () => this.broker.discard(threadId));
  }

  @ServeRequest(SandboxPing)
  ping(@Payload() request: RequestOf<typeof SandboxPing>) {
    return this.broker.ping(request.threadId);
  }

  @ServeRequest(SandboxExec)
  exec(@Payload() request: RequestOf<typeof SandboxExec>) {
    return this.broker.exec(request);
  }

  @ServeRequest(SandboxRead)
  read(@Payload() request: RequestOf<typeof SandboxRead>) {
    const { threadId, path } = request;
    return this.broker.on(threadId, async (s) => ({ content: await s.readFile(path) }));
  }

  @ServeRequest(SandboxWrite)
  write(@Payload() request: RequestOf<typeof SandboxWrite>) {
    const { requestId, threadId, path, content, encoding } = request;
    const bytes = encoding === 'base64' ? Buffer.from(content, 'base64') : content;
    return this.broker.once(requestId, () =>
      this.broker.on(threadId, async (s) => {
        await s.writeFile(path, bytes);
        return { written: true as const };
      }),
    );
  }

  @ServeRequest(SandboxEdit)
  edit(@Payload() request: RequestOf<typeof SandboxEdit>) {
    const { requestId, threadId, path, oldText, newText, replaceAll } = request;
    const options = replaceAll === undefined ? {} : { replaceAll };
    return this.broker.once(requestId, () =>
      this.broker.on(threadId, (s) => s.editFile(path, oldText, newText, options)),
    );
  }

  @ServeRequest(SandboxList)
  list(@Payload() request: RequestOf<typeof SandboxList>) {
    const { threadId, path, ...options } = request;
    return this.broker.on(threadId, (s) => s.listFiles(path, options));
  }

  @ServeRequest(SandboxGlob)
  glob(@Payload() request: RequestOf<typeof SandboxGlob>) {
    const { threadId, pattern, ...options } = request;
    return this.broker.on(threadId, async (s) => ({ paths: await s.glob(pattern, options) }));
  }

  @ServeRequest(SandboxGrep)
  grep(@Payload() request: RequestOf<typeof SandboxGrep>) {
    const { threadId, pattern, ...options } = request;
    return this.broker.on(threadId, (s) => s.grep(pattern, options));
  }

  @ServeRequest(SandboxTurnSnapshot)
  turnSnapshot(@Payload() request: RequestOf<typeof SandboxTurnSnapshot>) {
    const { threadId, messageId, repoPath } = request;
    const location = repoPath ? { repoPath } : {};
    return this.broker.on(threadId, (s) => snapshotTurn(s, messageId, location));
  }

  @ServeRequest(SandboxTurnDiff)
  turnDiff(@Payload() request: RequestOf<typeof SandboxTurnDiff>) {
    const { threadId, from, to, ...options } = request;
    return this.broker.on(threadId, (s) => turnDiff(s, from, to, options));
  }

  @ServeRequest(SandboxGitCommit)
  gitCommit(@Payload() request: RequestOf<typeof SandboxGitCommit>) {
    return this.broker.once(request.requestId, () => this.broker.commitAll(request));
  }

  @ServeRequest(SandboxGitDiff)
  gitDiff(@Payload() request: RequestOf<typeof SandboxGitDiff>) {
    return this.broker.diffSince(request);
  }

  @ServeRequest(SandboxGitPush)
  gitPush(@Payload() request: RequestOf<typeof SandboxGitPush>) {
    return this.broker.once(request.requestId, () => this.broker.push(request));
  }
}
