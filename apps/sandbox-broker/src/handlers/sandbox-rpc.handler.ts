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
} from '@caravel/contracts';
import { snapshotTurn, turnDiff } from '@caravel/sandbox';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { SandboxBrokerService } from '../services/sandbox-broker.service.js';

/**
 * Sandbox RPC on `sandbox.<threadId>.<op>`: validate the request, call the service, answer. A
 * request that changes something runs once per `requestId` (a retry gets the first outcome).
 */
@Controller()
export class SandboxRpcHandler {
  constructor(@Inject(SandboxBrokerService) private readonly broker: SandboxBrokerService) {}

  @MessagePattern<string>(SandboxAcquire.pattern)
  acquire(@Payload() raw: unknown) {
    return this.broker.acquire(SandboxAcquire.parseRequest(raw));
  }

  @MessagePattern<string>(SandboxRecreate.pattern)
  recreate(@Payload() raw: unknown) {
    const request = SandboxRecreate.parseRequest(raw);
    return this.broker.once(request.requestId, () => this.broker.recreate(request));
  }

  @MessagePattern<string>(SandboxRelease.pattern)
  release(@Payload() raw: unknown) {
    return this.broker.release(SandboxRelease.parseRequest(raw).threadId);
  }

  @MessagePattern<string>(SandboxDiscard.pattern)
  discard(@Payload() raw: unknown) {
    const { requestId, threadId } = SandboxDiscard.parseRequest(raw);
    return this.broker.once(requestId, () => this.broker.discard(threadId));
  }

  @MessagePattern<string>(SandboxPing.pattern)
  ping(@Payload() raw: unknown) {
    return this.broker.ping(SandboxPing.parseRequest(raw).threadId);
  }

  @MessagePattern<string>(SandboxExec.pattern)
  exec(@Payload() raw: unknown) {
    return this.broker.exec(SandboxExec.parseRequest(raw));
  }

  @MessagePattern<string>(SandboxRead.pattern)
  read(@Payload() raw: unknown) {
    const { threadId, path } = SandboxRead.parseRequest(raw);
    return this.broker.on(threadId, async (s) => ({ content: await s.readFile(path) }));
  }

  @MessagePattern<string>(SandboxWrite.pattern)
  write(@Payload() raw: unknown) {
    const { requestId, threadId, path, content, encoding } = SandboxWrite.parseRequest(raw);
    const bytes = encoding === 'base64' ? Buffer.from(content, 'base64') : content;
    return this.broker.once(requestId, () =>
      this.broker.on(threadId, async (s) => {
        await s.writeFile(path, bytes);
        return { written: true as const };
      }),
    );
  }

  @MessagePattern<string>(SandboxEdit.pattern)
  edit(@Payload() raw: unknown) {
    const { requestId, threadId, path, oldText, newText, replaceAll } =
      SandboxEdit.parseRequest(raw);
    const options = replaceAll === undefined ? {} : { replaceAll };
    return this.broker.once(requestId, () =>
      this.broker.on(threadId, (s) => s.editFile(path, oldText, newText, options)),
    );
  }

  @MessagePattern<string>(SandboxList.pattern)
  list(@Payload() raw: unknown) {
    const { threadId, path, ...options } = SandboxList.parseRequest(raw);
    return this.broker.on(threadId, (s) => s.listFiles(path, options));
  }

  @MessagePattern<string>(SandboxGlob.pattern)
  glob(@Payload() raw: unknown) {
    const { threadId, pattern, ...options } = SandboxGlob.parseRequest(raw);
    return this.broker.on(threadId, async (s) => ({ paths: await s.glob(pattern, options) }));
  }

  @MessagePattern<string>(SandboxGrep.pattern)
  grep(@Payload() raw: unknown) {
    const { threadId, pattern, ...options } = SandboxGrep.parseRequest(raw);
    return this.broker.on(threadId, (s) => s.grep(pattern, options));
  }

  @MessagePattern<string>(SandboxTurnSnapshot.pattern)
  turnSnapshot(@Payload() raw: unknown) {
    const { threadId, messageId, repoPath } = SandboxTurnSnapshot.parseRequest(raw);
    const location = repoPath ? { repoPath } : {};
    return this.broker.on(threadId, (s) => snapshotTurn(s, messageId, location));
  }

  @MessagePattern<string>(SandboxTurnDiff.pattern)
  turnDiff(@Payload() raw: unknown) {
    const { threadId, from, to, ...options } = SandboxTurnDiff.parseRequest(raw);
    return this.broker.on(threadId, (s) => turnDiff(s, from, to, options));
  }

  @MessagePattern<string>(SandboxGitCommit.pattern)
  gitCommit(@Payload() raw: unknown) {
    const { requestId, threadId, message } = SandboxGitCommit.parseRequest(raw);
    return this.broker.once(requestId, () => this.broker.commitAll(threadId, message));
  }

  @MessagePattern<string>(SandboxGitDiff.pattern)
  gitDiff(@Payload() raw: unknown) {
    const { threadId, baseRef } = SandboxGitDiff.parseRequest(raw);
    return this.broker.diffSince(threadId, baseRef);
  }

  @MessagePattern<string>(SandboxGitPush.pattern)
  gitPush(@Payload() raw: unknown) {
    const request = SandboxGitPush.parseRequest(raw);
    return this.broker.once(request.requestId, () => this.broker.push(request));
  }
}
