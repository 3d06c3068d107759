import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '@caravel/errors';
import type { SandboxBrokerClient, SandboxRequester } from '@caravel/sandbox';
import {
  brokerConfig,
  BrokerUnderTest,
  busTargets,
  dropNamespace,
  waitUntil,
} from './testing/broker-harness.js';

const namespace = `sb${randomBytes(4).toString('hex')}`;
const targets = await busTargets(namespace);

afterAll(async () => {
  if (!targets[1]?.gate.missing) await dropNamespace(namespace);
});

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/**
 * A git remote over HTTP that stops answering: with `gitDir`, it serves that repository's files
 * (git's dumb HTTP, so a clone works) until a second session asks for its refs (the pull request
 * head's fetch after the clone); without, from the first request (a push). The held request waits
 * in `git-remote-http`, the helper git starts, until something kills it. `asked` resolves once a
 * request is held, `hungUp` once its connection is closed (by the helper's death).
 */
class SilentRemote {
  readonly asked: Promise<void>;
  readonly hungUp: Promise<void>;

  private constructor(
    private readonly server: Server,
    gitDir?: string,
  ) {
    let ask!: () => void;
    let hangUp!: () => void;
    this.asked = new Promise((resolve) => (ask = resolve));
    this.hungUp = new Promise((resolve) => (hangUp = resolve));
    let sessions = 0;
    let holding = false;
    server.on('request', (request, response) => {
      const path = (request.url ?? '/').split('?')[0]?.replace(/^\/widgets\.git/, '') ?? '/';
      if (path === '/info/refs') sessions += 1;
      if (gitDir && sessions < 2) {
        void readFile(join(gitDir, path)).then(
          (body) => response.writeHead(200).end(body),
          () => response.writeHead(404).end(),
        );
        return;
      }
      if (holding) return;
      holding = true;
      request.socket.once('close', hangUp);
      ask();
    });
  }

  static async start(gitDir?: string): Promise<SilentRemote> {
    if (gitDir) execFileSync('git', ['update-server-info'], { cwd: gitDir });
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new SilentRemote(server, gitDir);
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/widgets.git`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

for (const target of targets) {
  target.gate.describe(`sandbox broker RPC [${target.label}]`, () => {
    let rootDir: string;
    let broker: BrokerUnderTest;
    let client: SandboxBrokerClient;
    let remote: string;
    const config = () => brokerConfig({ SANDBOX_PROVIDER: 'local', SANDBOX_ROOT: rootDir });

    beforeAll(async () => {
      rootDir = await mkdtemp(join(tmpdir(), 'caravel-broker-'));
      const source = join(rootDir, '..', `src-${randomUUID()}`);
      remote = join(rootDir, '..', `remote-${randomUUID()}.git`);
      execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', remote]);
      execFileSync('git', ['clone', '--quiet', remote, source], { stdio: 'ignore' });
      git(
        source,
        '-c',
        'user.name=t',
        '-c',
        'user.email=t@t',
        'commit',
        '--allow-empty',
        '-qm',
        'one',
      );
      git(source, 'push', '--quiet', 'origin', 'main');
      await rm(source, { recursive: true, force: true });
      broker = await BrokerUnderTest.start(target, config);
      client = broker.client;
    });

    afterAll(async () => {
      await broker?.stop();
      await rm(rootDir, { recursive: true, force: true });
      await rm(remote, { recursive: true, force: true });
    });

    const repository = () => ({ owner: 'acme', name: 'widgets', cloneUrl: remote });

    it('creates the thread sandbox from the repository and works in it through the Sandbox interface', async () => {
      const threadId = randomUUID();
      const sandbox = await client.acquire({
        threadId,
        branch: 'caravel/t1',
        repository: repository(),
      });
      expect(sandbox.handle).toMatchObject({
        outcome: 'created',
        branch: 'caravel/t1',
        origin: remote,
      });
      expect(sandbox.handle.baseCommit).toMatch(/^[0-9a-f]{40}$/);
      expect((await sandbox.exec('git branch --show-current')).output.trim()).toBe('caravel/t1');
      await sandbox.writeFile('src/app.ts', 'export const answer = 41;\n');
      expect(await sandbox.editFile('src/app.ts', '41', '42')).toEqual({ replacements: 1 });
      await sandbox.writeFile('bin.dat', new Uint8Array([0, 1, 2, 255]));
      expect((await sandbox.exec('od -An -tu1 bin.dat')).output.trim().split(/\s+/)).toEqual([
        '0',
        '1',
        '2',
        '255',
      ]);
      expect(await sandbox.readFile('src/app.ts')).toBe('export const answer = 42;\n');
      expect(await sandbox.glob('**/*.ts')).toEqual(['src/app.ts']);
      expect((await sandbox.grep('answer')).matches).toEqual([
        { path: 'src/app.ts', line: 1, text: 'export const answer = 42;' },
      ]);
      expect((await sandbox.listFiles('src')).entries.map((e) => e.path)).toEqual(['src/app.ts']);
      expect(await sandbox.ping()).toBe(true);
      const again = await client.acquire({
        threadId,
        branch: 'caravel/t1',
        repository: repository(),
      });
      expect(again.handle.outcome).toBe('reused');
    });

    it("carries the sandbox's coded errors across the bus with their reason", async () => {
      const threadId = randomUUID();
      const sandbox = await client.acquire({ threadId, branch: 'caravel/t2' });
      await expect(sandbox.readFile('missing.txt')).rejects.toMatchObject({
        code: 'NOT_FOUND',
        details: { reason: 'file_not_found' },
      });
      await expect(sandbox.readFile('../../etc/passwd')).rejects.toMatchObject({
        code: 'FORBIDDEN',
        details: { reason: 'path_outside_workdir' },
      });
      await expect(sandbox.editFile('missing.txt', 'a', 'b')).rejects.toMatchObject({
        details: { reason: 'file_not_found' },
      });
      await expect(client.ping(randomUUID())).resolves.toMatchObject({
        alive: false,
        provider: 'none',
      });
      const orphan = randomUUID();
      await expect(client.commitAll(orphan, 'x')).rejects.toMatchObject({
        code: 'NOT_FOUND',
        details: { reason: 'thread_has_no_sandbox' },
      });
      await expect(
        client.acquire({ threadId, branch: 'caravel/t2', allowReplacement: true }),
      ).rejects.toMatchObject({
        code: 'FORBIDDEN',
        details: { reason: 'replacement_not_allowed' },
      });
      await expect(sandbox.exec('true', { timeoutMs: -5 })).rejects.toMatchObject({
        code: 'MESSAGE_MALFORMED',
      });
    });

    it('takes turn checkpoints, commits, diffs against the base and pushes to the remote', async () => {
      const threadId = randomUUID();
      const sandbox = await client.acquire({
        threadId,
        branch: 'caravel/t3',
        repository: repository(),
      });
      expect(await client.snapshotTurn(threadId, 'm1')).toMatchObject({ created: true });
      await sandbox.exec('echo hello > hello.txt');
      expect(await client.turnDiff(threadId, 'm1', 'worktree')).toMatchObject({
        files: [{ path: 'hello.txt', status: 'added' }],
      });
      expect(await client.diffSince(threadId, sandbox.handle.baseCommit)).toContain('+hello');
      const commitSha = await client.commitAll(threadId, 'Add hello');
      expect(commitSha).toMatch(/^[0-9a-f]{40}$/);
      expect(await client.commitAll(threadId, 'nothing new')).toBeNull();
      expect(
        await client.push({ threadId, branch: 'caravel/t3', repository: repository() }),
      ).toEqual({ pushed: true, origin: remote, commitSha: null });
      expect(git(remote, 'rev-parse', 'caravel/t3')).toBe(commitSha);
    });

    it("continues a thread's pushed branch in a new sandbox, or starts at the base when asked", async () => {
      const threadId = randomUUID();
      const branch = 'caravel/t9';
      const first = await client.acquire({ threadId, branch, repository: repository() });
      await first.exec('echo pushed > pushed.txt');
      const pushed = await client.commitAll(threadId, 'Pushed work');
      await client.push({ threadId, branch, repository: repository() });
      expect(await client.discard(threadId)).toBe(true);

      // Its sandbox gone (reclaimed), the thread's next one starts where the branch is.
      const again = await client.acquire({ threadId, branch, repository: repository() });
      expect(again.handle).toMatchObject({ outcome: 'created', baseCommit: pushed, branch });
      expect(await again.readFile('pushed.txt')).toBe('pushed\n');
      // So its next push goes on top of the branch instead of restarting it from main.
      await again.exec('echo more > more.txt');
      const more = await client.commitAll(threadId, 'More work');
      await client.push({ threadId, branch, repository: repository() });
      expect(git(remote, 'rev-parse', `${branch}^`)).toBe(pushed);
      expect(git(remote, 'rev-parse', branch)).toBe(more);
      expect(await client.discard(threadId)).toBe(true);

      // With atBase (the branch's pull request was merged), it starts at main instead.
      const restarted = await client.acquire({
        threadId,
        branch,
        repository: repository(),
        atBase: true,
      });
      expect(restarted.handle).toMatchObject({
        outcome: 'created',
        baseCommit: git(remote, 'rev-parse', 'main'),
        branch,
      });
      expect((await restarted.exec('git rev-parse --abbrev-ref HEAD')).output.trim()).toBe(branch);
      await expect(restarted.readFile('pushed.txt')).rejects.toMatchObject({
        details: { reason: 'file_not_found' },
      });
    });

    it('pushes again to a branch deleted on the remote, never over one someone moved', async () => {
      const threadId = randomUUID();
      const branch = 'caravel/t10';
      const sandbox = await client.acquire({ threadId, branch, repository: repository() });
      const push = () => client.push({ threadId, branch, repository: repository() });
      await sandbox.exec('echo one > one.txt');
      await client.commitAll(threadId, 'One');
      await push();

      // Its pull request closed, the branch was deleted: the next push creates it again.
      git(remote, 'update-ref', '-d', `refs/heads/${branch}`);
      await sandbox.exec('echo two > two.txt');
      const two = String(await client.commitAll(threadId, 'Two'));
      await push();
      expect(git(remote, 'rev-parse', branch)).toBe(two);

      // Someone else moved it: the push is refused, their commit stays.
      const theirs = git(remote, 'commit-tree', `${two}^{tree}`, '-p', two, '-m', 'Theirs');
      git(remote, 'update-ref', `refs/heads/${branch}`, theirs);
      await sandbox.exec('echo three > three.txt');
      await client.commitAll(threadId, 'Three');
      await expect(push()).rejects.toThrow();
      expect(git(remote, 'rev-parse', branch)).toBe(theirs);
    });

    it("starts a sandbox at another thread's HEAD, and discards it with nothing left", async () => {
      const threadId = randomUUID();
      const thread = await client.acquire({
        threadId,
        branch: 'caravel/t6',
        repository: repository(),
      });
      await thread.exec('echo kept > kept.txt');
      const head = await client.commitAll(threadId, 'Keep a file');
      await thread.exec('echo uncommitted > loose.txt');

      const attemptId = randomUUID();
      const attempt = await client.acquire({
        threadId: attemptId,
        branch: 'caravel/a6',
        repository: repository(),
        startFrom: threadId,
      });
      expect(attempt.handle).toMatchObject({
        outcome: 'created',
        baseCommit: head,
        origin: remote,
      });
      expect(await attempt.readFile('kept.txt')).toBe('kept\n');
      await expect(attempt.readFile('loose.txt')).rejects.toMatchObject({
        details: { reason: 'file_not_found' },
      });

      expect(await client.discard(attemptId)).toBe(true);
      expect(await client.discard(attemptId)).toBe(false);
      await expect(client.ping(attemptId)).resolves.toMatchObject({ alive: false });
      await expect(client.commitAll(attemptId, 'x')).rejects.toMatchObject({
        details: { reason: 'thread_has_no_sandbox' },
      });
      expect(existsSync(join(rootDir, attempt.id))).toBe(false);
      expect(await thread.readFile('kept.txt')).toBe('kept\n');
    });

    it('answers a retried edit, write or push with what the first attempt did, never doing it twice', async () => {
      const lost: string[] = [];
      // The broker answers, but the first answer to each of these ops never reaches the caller.
      const losing = (bus: SandboxRequester): SandboxRequester => ({
        serve: (subject, handler) => bus.serve(subject, handler),
        request: async <T>(subject: string, payload: unknown, options?: { timeoutMs?: number }) => {
          const answer = await bus.request<T>(subject, payload, options);
          const op = subject.split('.').pop() ?? '';
          if (['edit', 'write', 'git-push'].includes(op) && !lost.includes(op)) {
            lost.push(op);
            throw new AppError('TIMEOUT', `the answer on ${subject} was lost`);
          }
          return answer;
        },
      });
      const { client: unlucky, close } = await broker.newClient(losing);
      try {
        const threadId = randomUUID();
        const sandbox = await unlucky.acquire({
          threadId,
          branch: 'caravel/t7',
          repository: repository(),
        });
        await sandbox.writeFile('count.txt', 'a\n');
        expect(await sandbox.editFile('count.txt', 'a', 'aa')).toEqual({ replacements: 1 });
        expect(await sandbox.readFile('count.txt')).toBe('aa\n');
        const pushed = await unlucky.push({
          threadId,
          branch: 'caravel/t7',
          repository: repository(),
          commitMessage: 'Count once',
        });
        expect(pushed).toMatchObject({
          pushed: true,
          commitSha: expect.stringMatching(/^[0-9a-f]{40}$/),
        });
        expect(git(remote, 'rev-parse', 'caravel/t7')).toBe(pushed.commitSha);
        expect(git(remote, 'rev-list', '--count', 'main..caravel/t7')).toBe('1');
        expect(lost.sort()).toEqual(['edit', 'git-push', 'write']);
      } finally {
        await close();
      }
    });

    it('lets a command outlive several liveness probes while its caller is there', async () => {
      const threadId = randomUUID();
      const sandbox = await client.acquire({ threadId, branch: 'caravel/t5' });
      const probesBefore = client.calls.probesHeard;
      const result = await sandbox.exec('sleep 4; echo finished >> slow.log; cat slow.log');
      expect(result).toMatchObject({ exitCode: 0, output: 'finished\n' });
      // The probes named the command's call, so its client would fail it were the broker gone.
      expect(client.calls.probesHeard).toBeGreaterThan(probesBefore);
      expect(client.calls.size).toBe(0);
    });

    it('answers the command its shutdown stops, and what comes after, with shutting_down at once', async () => {
      const threadId = randomUUID();
      const sandbox = await client.acquire({ threadId, branch: 'caravel/t5' });
      const running = sandbox.exec('touch started; sleep 120', { timeoutMs: 150_000 });
      const started = join(rootDir, sandbox.id, 'workspace', 'started');
      await waitUntil('the command to start', () => existsSync(started));

      // The broker's own shutdown step (its host calls it once the consumers drained).
      const stopping = broker.service.onModuleDestroy();
      const refusal = { code: 'DEPENDENCY_UNAVAILABLE', details: { reason: 'shutting_down' } };
      await expect(running).rejects.toMatchObject(refusal);
      await expect(sandbox.readFile('started')).rejects.toMatchObject(refusal);
      await stopping;
      await broker.restart();
      client = broker.client;
    });

    it('kills a push its shutdown stops, with the helper git started, and the push asked again lands once', async () => {
      const threadId = randomUUID();
      const branch = 'caravel/t11';
      const sandbox = await client.acquire({ threadId, branch, repository: repository() });
      await sandbox.exec('echo held > held.txt');
      const commitSha = await client.commitAll(threadId, 'Held push');
      const silent = await SilentRemote.start();
      try {
        const pushing = client.push({
          threadId,
          branch,
          repository: { ...repository(), cloneUrl: silent.url },
        });
        await silent.asked;

        const stopping = broker.service.onModuleDestroy();
        await expect(pushing).rejects.toMatchObject({
          code: 'DEPENDENCY_UNAVAILABLE',
          details: { reason: 'shutting_down' },
        });
        // git-remote-http, which git started to talk to the remote, died with it (before, it
        // held its connection, and the push's answer, until the process ended).
        await silent.hungUp;
        await stopping;
      } finally {
        await silent.close();
      }
      await broker.restart();
      client = broker.client;

      // The caller asks again, on the next broker: the branch lands once.
      const push = () => client.push({ threadId, branch, repository: repository() });
      expect(await push()).toMatchObject({ pushed: true, origin: remote });
      expect(git(remote, 'rev-parse', branch)).toBe(commitSha);
      // A push that reached the remote before its broker stopped, unrecorded in the mirror, is
      // up to date when asked again, not refused as a stale lease.
      git(join(rootDir, sandbox.id, 'mirror.git'), 'update-ref', '-d', `refs/heads/${branch}`);
      expect(await push()).toMatchObject({ pushed: true, origin: remote });
      expect(git(remote, 'rev-list', '--count', `main..${branch}`)).toBe('1');
    });

    it("kills a pull request head's fetch its shutdown stops; the next broker sets the thread up", async () => {
      const threadId = randomUUID();
      const branch = 'caravel/t12';
      const silent = await SilentRemote.start(remote);
      const givenUp = new AbortController();
      try {
        const acquiring = client
          .acquire(
            {
              threadId,
              branch,
              repository: { ...repository(), cloneUrl: silent.url },
              startRef: 'refs/pull/1/head',
            },
            givenUp.signal,
          )
          .catch((error: unknown) => error);
        // The clone was served; the fetch of the pull request's head waits on the remote.
        await silent.asked;
        await broker.service.onModuleDestroy();
        // git-remote-http died with the fetch (before, it held its connection until the end).
        await silent.hungUp;
        // The client would ask again (a broker restarting answers soon): this test stops it.
        givenUp.abort();
        expect(await acquiring).toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
      } finally {
        await silent.close();
      }
      await broker.restart();
      client = broker.client;

      // The failed setup left no binding and let the thread's lock go: a new sandbox at once.
      const sandbox = await client.acquire({ threadId, branch, repository: repository() });
      expect(sandbox.handle).toMatchObject({ outcome: 'created' });
    });

    it('loses no sandbox when the broker restarts: the next request finds the same files', async () => {
      const threadId = randomUUID();
      const before = await client.acquire({ threadId, branch: 'caravel/t4' });
      await before.exec('echo survived > crash.txt');
      await broker.restart();
      client = broker.client;
      const after = await client.acquire({ threadId, branch: 'caravel/t4' });
      expect(after.handle).toMatchObject({ outcome: 'reconnected', sandboxId: before.id });
      expect(await after.readFile('crash.txt')).toBe('survived\n');
      expect((await after.exec('cat crash.txt')).output).toBe('survived\n');
    });
  });
}
