import { createHash } from 'node:crypto';
import { chmod, chown, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileOwner } from '../files/workdir-files.js';
import { sandboxError } from '../sandbox.errors.js';
import type { GitHubEndpoints } from './egress-policy.js';
import { EgressProxy, type EgressEvent } from './egress-proxy.js';
import { EGRESS_SOCKET_NAME } from './sandbox-egress.js';
import type { TokenSource } from './token-source.js';

/** The longest path a Unix socket may have on Linux (`sun_path` is 108 bytes, NUL included). */
const MAX_SOCKET_PATH = 107;

/** A sandbox's hold on its proxy: the proxy answers until every lease is closed. */
export interface EgressLease {
  close(): Promise<void>;
}

/**
 * What a provider asks of whoever runs the sandboxes' egress proxies (the broker): have the
 * proxy answer in `socketDir(id)` while a session runs, and forget it when the sandbox goes.
 */
export interface SandboxEgressGateway {
  /** The host directory holding the sandbox's `egress.sock` (bound into the sandbox). */
  socketDir(sandboxId: string): string;
  open(sandboxId: string): Promise<EgressLease>;
  forget(sandboxId: string): Promise<void>;
}

/** Settings of {@link EgressProxyPool}. */
export interface EgressProxyPoolOptions {
  /**
   * Per sandbox: `<dir>/<key>/scope.json` and `<dir>/<key>/socket/egress.sock`, where `<key>` is
   * 16 hex digits of the id's SHA-256 (a socket path may not exceed 107 bytes).
   */
  readonly dir: string;
  readonly github: GitHubEndpoints;
  /** Hosts every sandbox may reach without credentials (package registries). */
  readonly allowlist: readonly string[];
  readonly upstreamOverrides?: Readonly<Record<string, string>>;
  /** The credential for one repository (only ever called with a sandbox's own scope). */
  readonly tokenSource: (repository: string) => TokenSource;
  /** The unprivileged host uid a sandbox runs as: the only one let into the socket directory. */
  readonly socketOwner?: FileOwner;
  readonly onEvent?: (sandboxId: string, event: EgressEvent) => void;
}

interface Running {
  leases: number;
  proxy: EgressProxy;
}

/**
 * One egress proxy per sandbox, scoped to its thread's repository. A proxy listens while the
 * sandbox has a session (leases are counted) and is closed with the last one. The scope is
 * written on the host, outside anything bound into the sandbox, when the broker sets the sandbox
 * up, so a restarted broker reopens the proxy with the same scope and the agent cannot widen it.
 * Operations on one sandbox are serialized.
 */
export class EgressProxyPool implements SandboxEgressGateway {
  private readonly running = new Map<string, Running>();
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(private readonly options: EgressProxyPoolOptions) {}

  socketDir(sandboxId: string): string {
    return join(this.sandboxDir(sandboxId), 'socket');
  }

  /** Records the repository a sandbox's proxy injects credentials for (restarting a running one). */
  scope(sandboxId: string, repository: string | null): Promise<void> {
    return this.serial(sandboxId, async () => {
      await this.prepareDir(sandboxId);
      await writeFile(this.scopeFile(sandboxId), JSON.stringify({ sandboxId, repository }), {
        mode: 0o600,
      });
      const running = this.running.get(sandboxId);
      if (!running) return;
      await running.proxy.close();
      running.proxy = await this.listen(sandboxId, repository);
    });
  }

  open(sandboxId: string): Promise<EgressLease> {
    return this.serial(sandboxId, async () => {
      const running = this.running.get(sandboxId);
      if (running) running.leases += 1;
      else {
        await this.prepareDir(sandboxId);
        const proxy = await this.listen(sandboxId, await this.readScope(sandboxId));
        this.running.set(sandboxId, { leases: 1, proxy });
      }
      let closed = false;
      return {
        close: () => {
          if (closed) return Promise.resolve();
          closed = true;
          return this.release(sandboxId);
        },
      };
    });
  }

  forget(sandboxId: string): Promise<void> {
    return this.serial(sandboxId, async () => {
      await this.running.get(sandboxId)?.proxy.close();
      this.running.delete(sandboxId);
      await rm(this.sandboxDir(sandboxId), { recursive: true, force: true });
    });
  }

  /** Closes every proxy (the sandboxes' sessions are ending with the broker). */
  async closeAll(): Promise<void> {
    const ids = [...this.running.keys()];
    await Promise.all(
      ids.map((id) =>
        this.serial(id, async () => {
          await this.running.get(id)?.proxy.close();
          this.running.delete(id);
        }),
      ),
    );
  }

  /** Sandboxes whose proxy is listening now. */
  get listening(): string[] {
    return [...this.running.keys()];
  }

  private release(sandboxId: string): Promise<void> {
    return this.serial(sandboxId, async () => {
      const running = this.running.get(sandboxId);
      if (!running) return;
      running.leases -= 1;
      if (running.leases > 0) return;
      this.running.delete(sandboxId);
      await running.proxy.close();
    });
  }

  private async listen(sandboxId: string, repository: string | null): Promise<EgressProxy> {
    const { github, allowlist, upstreamOverrides, onEvent } = this.options;
    const proxy = new EgressProxy({
      github,
      repository,
      allowlist,
      ...(upstreamOverrides ? { upstreamOverrides } : {}),
      tokenSource: repository === null ? noToken : this.options.tokenSource(repository),
      ...(onEvent ? { onEvent: (event: EgressEvent) => onEvent(sandboxId, event) } : {}),
    });
    await proxy.listen({ socketPath: join(this.socketDir(sandboxId), EGRESS_SOCKET_NAME) });
    return proxy;
  }

  /** `<key>/` listable by the broker only; `<key>/socket/` open to the sandbox's uid only. */
  private async prepareDir(sandboxId: string): Promise<void> {
    const socketDir = this.socketDir(sandboxId);
    const socketPath = join(socketDir, EGRESS_SOCKET_NAME);
    if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) {
      throw sandboxError(
        'invalid_input',
        `the egress socket path ${socketPath} is longer than ${MAX_SOCKET_PATH} bytes: ` +
          'configure a shorter egress directory',
      );
    }
    // Traversable (not listable) on the way down: the sandbox's uid must reach its socket.
    await mkdir(this.sandboxDir(sandboxId), { recursive: true, mode: 0o711 });
    await chmod(this.sandboxDir(sandboxId), 0o711);
    await mkdir(socketDir, { recursive: true, mode: 0o700 });
    const owner = this.options.socketOwner;
    if (owner) await chown(socketDir, owner.uid, owner.gid);
    await chmod(socketDir, 0o700);
  }

  private sandboxDir(sandboxId: string): string {
    const key = createHash('sha256').update(sandboxId).digest('hex').slice(0, 16);
    return join(this.options.dir, key);
  }

  private scopeFile(sandboxId: string): string {
    return join(this.sandboxDir(sandboxId), 'scope.json');
  }

  private async readScope(sandboxId: string): Promise<string | null> {
    const text = await readFile(this.scopeFile(sandboxId), 'utf8').catch(() => null);
    if (text === null) return null;
    const parsed = JSON.parse(text) as { repository?: unknown };
    return typeof parsed.repository === 'string' ? parsed.repository : null;
  }

  private serial<T>(sandboxId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(sandboxId) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    this.queues.set(sandboxId, settled);
    void settled.then(() => {
      if (this.queues.get(sandboxId) === settled) this.queues.delete(sandboxId);
    });
    return next;
  }
}

/** The token source of a sandbox without a repository: the policy refuses GitHub before asking. */
const noToken: TokenSource = {
  getToken: () =>
    Promise.reject(sandboxError('invalid_input', 'this sandbox has no GitHub repository')),
};
