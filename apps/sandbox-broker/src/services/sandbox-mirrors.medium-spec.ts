import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostGit, type Sandbox } from '@caravel/sandbox';
import { seedRemote } from '@caravel/sandbox/testing';
import { WorkspaceHost } from './workspace-host.js';
import { brokerConfig } from '../testing/broker-harness.js';

/**
 * An agent's git can write any object (`git mktree` takes any entry name): the broker checks what
 * a sandbox's bundle brings before it enters the mirror it pushes from.
 */
describe("the broker refuses a sandbox's malformed objects before pushing them", () => {
  let dir: string;
  let remote: string;
  let host: WorkspaceHost;
  const opened: Sandbox[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caravel-mirror-objects-'));
    await chmod(dir, 0o755);
    remote = await seedRemote(join(dir, 'remotes'));
    host = new WorkspaceHost(
      brokerConfig({ SANDBOX_PROVIDER: 'local', SANDBOX_ROOT: join(dir, 'sandboxes') }),
      { warn: () => undefined },
    );
  });

  afterAll(async () => {
    await Promise.all(opened.map((sandbox) => sandbox.close()));
    await rm(dir, { recursive: true, force: true });
  });

  const repository = () => ({ owner: 'acme', name: 'widgets', cloneUrl: remote });

  it("answers the push with the reason, pushes nothing, and takes the commits once they're rewritten", async () => {
    const sandbox = await host.provider.create({ id: 'sbx-dotgit' });
    opened.push(sandbox);
    await host.setupFor({ branch: 'caravel/t1', repository: repository() })(sandbox);
    const crafted = await sandbox.exec(
      [
        'blob=$(echo "[core] fsmonitor = touch /tmp/owned" | git hash-object -w --stdin)',
        'tree=$(printf "100644 blob $blob\\t.GIT\\n" | git mktree)',
        'git reset -q --soft $(git commit-tree $tree -p HEAD -m hostile)',
      ].join(' && '),
    );
    expect(crafted.exitCode).toBe(0);

    const refused = await host
      .push('sbx-dotgit', 'caravel/t1', repository())
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: 'PRECONDITION_FAILED',
      details: { reason: 'sandbox_objects_refused' },
    });
    expect((refused as Error).message).toMatch(
      /^the sandbox's commits were refused: object [0-9a-f]{40}: hasDotgit: contains '\.git'$/,
    );
    await expect(
      hostGit(remote, ['rev-parse', '--verify', 'refs/heads/caravel/t1']),
    ).rejects.toThrow();

    await sandbox.exec(
      'git reset -q --hard HEAD~1 && echo fixed > fix.txt && git add fix.txt && git commit -qm fix',
    );
    const pushed = await host.push('sbx-dotgit', 'caravel/t1', repository());
    expect(pushed).toMatchObject({ pushed: true, origin: remote });
    expect(await hostGit(remote, ['rev-parse', 'refs/heads/caravel/t1'])).toBe(pushed.commit);
  });
});
