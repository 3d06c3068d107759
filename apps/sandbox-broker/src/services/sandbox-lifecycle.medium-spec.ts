import { openDatabase, SandboxRepository, type Database } from '@caravel/db';
import { AppError } from '@caravel/errors';
import { createEmbeddedBus, type Bus } from '@caravel/messaging';
import {
  BwrapSandboxProvider,
  bwrapAvailable,
  IdleReclaimer,
  isSandboxUnreachable,
  LocalSandboxProvider,
  prepareWorkspace,
  SandboxLifecycle,
  type FileOwner,
  type Sandbox,
  type SandboxLogger,
  type SandboxProvider,
  type SandboxSetup,
  type ThreadLock,
} from '@caravel/sandbox';
import { describeEachDatabase, testEnvironment, type TestDatabaseTarget } from '@caravel/testing';
import { randomUUID } from 'node:crypto';
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RepositoryBindingStore } from './binding-store.js';
import { BusThreadLock } from './bus-thread-lock.js';
import { WorkspaceHost } from './workspace-host.js';
import { execFileSync } from 'node:child_process';
import { brokerConfig } from '../testing/broker-harness.js';

const quiet = { warn: () => undefined };
const configFor = (root: string, provider = 'local', env: Record<string, string> = {}) =>
  brokerConfig({
    SANDBOX_PROVIDER: provider,
    SANDBOX_ROOT: root,
    SANDBOX_EGRESS: 'none',
    ...env,
  });

/** Runs work without any lock: only the one-binding-per-thread rule stands between claimants. */
const noLock: ThreadLock = { run: (_threadId, work) => work() };

/** A provider the lifecycle rules run on; `owner`: who must own a workdir the host prepares. */
interface LifecycleProvider {
  readonly name: string;
  make(rootDir: string): SandboxProvider;
  readonly owner?: FileOwner;
}

const local: LifecycleProvider = {
  name: 'local',
  make: (rootDir) => new LocalSandboxProvider({ rootDir, logger: quiet }),
};
const bwrap: LifecycleProvider = {
  name: 'bwrap',
  make: (rootDir) => new BwrapSandboxProvider({ rootDir }),
  // Under root bubblewrap runs as nobody, which must own the workdir (as in the broker).
  ...(process.getuid?.() === 0 ? { owner: { uid: 65534, gid: 65534 } } : {}),
};

const lifecycleSuite = (kind: LifecycleProvider) => (target: TestDatabaseTarget<Database>) => {
  let database: Database;
  let bus: Bus;
  let rootDir: string;
  let repository: SandboxRepository;
  const lifecycles: SandboxLifecycle[] = [];

  beforeAll(async () => {
    database = await target.open();
    bus = createEmbeddedBus({ database, name: 'lifecycle-medium' });
    rootDir = await mkdtemp(join(tmpdir(), 'caravel-lifecycle-'));
    // mkdtemp makes it private; bubblewrap runs as an unprivileged uid that must traverse it.
    await chmod(rootDir, 0o755);
    repository = new SandboxRepository(database.db);
  });

  afterAll(async () => {
    await Promise.all(lifecycles.map((l) => l.closeAll()));
    await bus?.close();
    await database?.close();
    await rm(rootDir, { recursive: true, force: true });
  });

  /** A lifecycle as one broker process would have it (its own provider, cache and lock). */
  function broker(
    lock: ThreadLock = new BusThreadLock(bus.leases, 'broker'),
    logger: SandboxLogger = quiet,
  ) {
    const lifecycle = new SandboxLifecycle({
      provider: kind.make(rootDir),
      bindings: new RepositoryBindingStore(repository),
      lock,
      logger,
    });
    lifecycles.push(lifecycle);
    return lifecycle;
  }

  const setup: SandboxSetup = async (sandbox) => {
    await prepareWorkspace({
      workdir: join(rootDir, sandbox.id, 'workspace'),
      branch: 'work',
      ...(kind.owner ? { owner: kind.owner } : {}),
    });
  };
  const sandboxDirs = async () => (await readdir(rootDir)).sort();
  const exists = (path: string) =>
    stat(path).then(
      () => true,
      () => false,
    );
  const corrupt = (sandbox: Sandbox) =>
    writeFile(join(rootDir, sandbox.id, 'sandbox.json'), '{ not json');

  it('creates a sandbox for a new thread, then reuses it while it is alive', async () => {
    const threadId = randomUUID();
    const lifecycle = broker();
    const first = await lifecycle.acquire(threadId, { setup });
    expect(first.outcome).toBe('created');
    expect(first.sandbox.id).toBe(threadId);
    expect((await repository.getByThread(threadId))?.externalId).toBe(threadId);
    const again = await lifecycle.acquire(threadId, { setup });
    expect(again).toMatchObject({ outcome: 'reused' });
    expect(again.sandbox).toBe(first.sandbox);
  });

  it('says so when it closes a session a command still runs on (released under it)', async () => {
    const threadId = randomUUID();
    const warnings: string[] = [];
    const lifecycle = broker(undefined, { warn: (message) => void warnings.push(message) });
    await lifecycle.acquire(threadId, { setup });
    await lifecycle.use(threadId, (sandbox) => sandbox.exec('true'));
    expect(await lifecycle.release(threadId)).toBe(true);
    expect(warnings).toEqual([]); // nothing ran on it: closed quietly
    await lifecycle.acquire(threadId, { setup });
    const started = join(rootDir, threadId, 'workspace', 'started');
    const running = lifecycle.use(threadId, (sandbox) =>
      sandbox.exec('touch started; sleep 60', { timeoutMs: 120_000 }),
    );
    const ended = running.then(
      (result) => `exit ${result.exitCode}`,
      (error: unknown) => `failed: ${String(error)}`,
    );
    while (!(await exists(started))) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await lifecycle.release(threadId)).toBe(true);
    expect(await ended).not.toBe('exit 0');
    expect(warnings).toEqual([
      expect.stringMatching(
        new RegExp(
          `^thread ${threadId}: its sandbox session is closed \\(released\\) while 1 operation`,
        ),
      ),
    ]);
  });

  it('reconnects to the bound sandbox when this process has none cached, files intact', async () => {
    const threadId = randomUUID();
    const created = await broker().acquire(threadId, { setup });
    await created.sandbox.exec('echo from-before > before.txt');
    const other = await broker().acquire(threadId, {
      setup: () => Promise.reject(new Error('no')),
    });
    expect(other.outcome).toBe('reconnected');
    expect(other.sandbox.id).toBe(created.sandbox.id);
    expect(await other.sandbox.readFile('before.txt')).toBe('from-before\n');
  });

  it('binds nothing and leaves no directory when the setup fails', async () => {
    const threadId = randomUUID();
    const before = await sandboxDirs();
    const failing: SandboxSetup = () => Promise.reject(new AppError('NOT_FOUND', 'no such repo'));
    await expect(broker().acquire(threadId, { setup: failing })).rejects.toThrow('no such repo');
    expect(await repository.getByThread(threadId)).toBeNull();
    expect(await sandboxDirs()).toEqual(before);
  });

  it('raises SandboxUnreachable for a bound sandbox it cannot open, and replaces nothing', async () => {
    const threadId = randomUUID();
    const { sandbox } = await broker().acquire(threadId, { setup });
    await sandbox.writeFile('work.txt', 'uncommitted');
    await corrupt(sandbox);
    const error: unknown = await broker()
      .acquire(threadId, { setup })
      .catch((e: unknown) => e);
    expect(isSandboxUnreachable(error)).toBe(true);
    expect(error).toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE', retryable: false });
    expect((await repository.getByThread(threadId))?.externalId).toBe(sandbox.id);
    expect(await readFile(join(rootDir, sandbox.id, 'workspace', 'work.txt'), 'utf8')).toBe(
      'uncommitted',
    );
    expect(await repository.listRetired(threadId)).toEqual([]);
  });

  it('lets a reviewer thread replace an unreachable sandbox, keeping the old one on record', async () => {
    const threadId = randomUUID();
    const { sandbox: old } = await broker().acquire(threadId, { setup });
    await corrupt(old);
    const replaced = await broker().acquire(threadId, { setup, allowReplacement: true });
    expect(replaced.outcome).toBe('replaced');
    expect(replaced.sandbox.id).not.toBe(old.id);
    expect((await repository.getByThread(threadId))?.externalId).toBe(replaced.sandbox.id);
    expect(await repository.listRetired(threadId)).toMatchObject([
      { externalId: old.id, reason: 'replaced', kept: true },
    ]);
    expect(await exists(join(rootDir, old.id))).toBe(true);
  });

  it('raises SandboxUnreachable for a bound sandbox deleted under it, and binds no new one', async () => {
    const threadId = randomUUID();
    const { sandbox: old } = await broker().acquire(threadId, { setup });
    await rm(join(rootDir, old.id), { recursive: true, force: true });
    const before = await sandboxDirs();
    const error: unknown = await broker()
      .acquire(threadId, { setup })
      .catch((e: unknown) => e);
    expect(isSandboxUnreachable(error)).toBe(true);
    expect((await repository.getByThread(threadId))?.externalId).toBe(old.id);
    expect(await repository.listRetired(threadId)).toEqual([]);
    expect(await sandboxDirs()).toEqual(before);
  });

  it('lets a reviewer thread replace a bound sandbox that no longer exists', async () => {
    const threadId = randomUUID();
    const { sandbox: old } = await broker().acquire(threadId, { setup });
    await rm(join(rootDir, old.id), { recursive: true, force: true });
    const next = await broker().acquire(threadId, { setup, allowReplacement: true });
    expect(next.outcome).toBe('replaced');
    expect(await repository.listRetired(threadId)).toMatchObject([
      { externalId: old.id, reason: 'gone', kept: false },
    ]);
  });

  it('recreates on request: a new sandbox is bound and the old one is retired, not deleted', async () => {
    const threadId = randomUUID();
    const lifecycle = broker();
    const { sandbox: old } = await lifecycle.acquire(threadId, { setup });
    await old.writeFile('draft.txt', 'half done');
    const fresh = await lifecycle.recreate(threadId, setup);
    expect(fresh.sandbox.id).not.toBe(old.id);
    await expect(fresh.sandbox.readFile('draft.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await readFile(join(rootDir, old.id, 'workspace', 'draft.txt'), 'utf8')).toBe(
      'half done',
    );
    expect(await repository.listRetired(threadId)).toMatchObject([
      { externalId: old.id, reason: 'recreated', kept: true },
    ]);
    expect((await lifecycle.acquire(threadId, { setup })).outcome).toBe('reused');
  });

  it('gives two concurrent claimants one sandbox when the bus lease serializes them', async () => {
    const threadId = randomUUID();
    const before = new Set(await sandboxDirs());
    const [a, b] = await Promise.all([
      broker().acquire(threadId, { setup }),
      broker().acquire(threadId, { setup }),
    ]);
    expect(a.sandbox.id).toBe(b.sandbox.id);
    expect([a.outcome, b.outcome].sort()).toEqual(['created', 'reconnected']);
    expect((await sandboxDirs()).filter((d) => !before.has(d))).toEqual([threadId]);
  });

  it('gives two racing claimants one sandbox on the unique binding alone; the loser deletes its own', async () => {
    const threadId = randomUUID();
    const before = new Set(await sandboxDirs());
    const [a, b] = await Promise.all([
      broker(noLock).acquire(threadId, { setup }),
      broker(noLock).acquire(threadId, { setup }),
    ]);
    expect(a.sandbox.id).toBe(b.sandbox.id);
    const bound = await repository.getByThread(threadId);
    expect(bound?.externalId).toBe(a.sandbox.id);
    const added = (await sandboxDirs()).filter((d) => !before.has(d));
    expect(added).toEqual([a.sandbox.id]);
  });

  // Last: the sweep reclaims every idle sandbox of this database, the other tests' included.
  it('reclaims idle sandboxes, snapshotting unsaved work to a bundle recorded with the retirement', async () => {
    const host = new WorkspaceHost(
      // The snapshot is made inside the sandbox, by the provider that holds it.
      configFor(rootDir, kind.name, {
        SANDBOX_SNAPSHOT_DIR: join(rootDir, '..', `snap-${randomUUID()}`),
      }),
      quiet,
    );
    const lifecycle = broker();
    const dirtyThread = randomUUID();
    const { sandbox: dirty } = await lifecycle.acquire(dirtyThread, { setup });
    await dirty.exec('echo precious > unsaved.txt');
    const busyThread = randomUUID();
    await lifecycle.acquire(busyThread, { setup });
    const future = () => new Date(Date.now() + 3_600_000);
    const reclaimer = new IdleReclaimer({
      lifecycle,
      bindings: new RepositoryBindingStore(repository),
      idleTtlMs: 60_000,
      snapshot: host.snapshot,
      now: future,
      batchSize: 1000,
    });
    let report: Awaited<ReturnType<IdleReclaimer['sweep']>> | undefined;
    await lifecycle.use(busyThread, async () => {
      report = await reclaimer.sweep();
    });
    expect(report?.kept.filter((k) => k.threadId === dirtyThread)).toEqual([]);
    expect(report?.reclaimed).toContain(dirtyThread);
    expect(report?.kept.map((k) => k.threadId)).toContain(busyThread);
    expect(await repository.getByThread(dirtyThread)).toBeNull();
    expect(await exists(join(rootDir, dirty.id))).toBe(false);
    const [retired] = await repository.listRetired(dirtyThread);
    expect(retired).toMatchObject({ reason: 'reclaimed', kept: false });
    const restored = join(rootDir, '..', `restored-${randomUUID()}`);
    execFileSync('git', ['clone', '--quiet', retired!.snapshotPath!, restored], {
      stdio: 'ignore',
    });
    const file = execFileSync('git', ['show', `${retired!.snapshotCommit}:unsaved.txt`], {
      cwd: restored,
      encoding: 'utf8',
    });
    expect(file).toBe('precious\n');
    await rm(restored, { recursive: true, force: true });
    expect((await broker().acquire(dirtyThread, { setup })).outcome).toBe('created');
  });
};

// Only outside CI may a missing bubblewrap skip the bwrap run; in CI it must fail instead.
const bwrapSkip = !bwrapAvailable() && !testEnvironment.CI;
if (bwrapSkip) process.stdout.write('sandbox lifecycle (bwrap) skipped: bwrap is not installed\n');
for (const kind of bwrapSkip ? [local] : [local, bwrap]) {
  await describeEachDatabase(
    `sandbox lifecycle (${kind.name} provider)`,
    openDatabase,
    lifecycleSuite(kind),
  );
}
