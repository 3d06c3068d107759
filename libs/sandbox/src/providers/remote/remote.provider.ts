import type { Sandbox, SandboxProvider, SandboxSpec } from '../../sandbox.types.js';
import { RemoteHttpClient, type RemoteConnectionOptions } from './remote-http-client.js';
import { RemoteSandbox, type RemoteSession } from './remote-sandbox.js';

/** Settings every remote provider takes. */
export interface RemoteProviderOptions extends RemoteConnectionOptions {
  /**
   * Added to a command's timeout to bound its exec request (default 30 s): the service needs
   * the kill grace and the answer's transfer on top of the command's own time.
   */
  readonly execSlackMs?: number;
}

const DEFAULT_EXEC_SLACK_MS = 30_000;

/**
 * The base of providers whose sandboxes live in a remote service reached over HTTP
 * (Daytona/E2B-style: create, open a session, exec in it, file endpoints, delete). It owns the
 * transport (`http`) and the lifecycle: a created sandbox whose first session cannot be opened is
 * deleted again, so a half-built sandbox is never left to adopt; `delete` closes this side's
 * open sandboxes. A concrete provider maps four calls onto its service's API.
 */
export abstract class RemoteSandboxProvider implements SandboxProvider {
  readonly name = 'remote' as const;
  protected readonly http: RemoteHttpClient;
  private readonly execSlackMs: number;
  private readonly open = new Map<string, Set<RemoteSandbox>>();

  protected constructor(options: RemoteProviderOptions) {
    this.http = new RemoteHttpClient(options);
    this.execSlackMs = options.execSlackMs ?? DEFAULT_EXEC_SLACK_MS;
  }

  async create(spec: SandboxSpec = {}): Promise<Sandbox> {
    const id = await this.createSandbox(spec);
    try {
      return this.track(await this.openSession(id));
    } catch (error) {
      await this.deleteSandbox(id).catch(() => undefined);
      throw error;
    }
  }

  async connect(id: string): Promise<Sandbox> {
    return this.track(await this.openSession(id));
  }

  async delete(id: string): Promise<void> {
    await this.deleteSandbox(id);
    for (const sandbox of [...(this.open.get(id) ?? [])]) sandbox.markClosed();
  }

  /** Creates the sandbox in the service; returns its id. CONFLICT when `spec.id` is taken. */
  protected abstract createSandbox(spec: SandboxSpec): Promise<string>;

  /** Opens a new session on an existing sandbox; NOT_FOUND (`sandbox_not_found`) when unknown. */
  protected abstract openSession(id: string): Promise<RemoteSession>;

  /** Deletes the sandbox and everything in it; NOT_FOUND when unknown. */
  protected abstract deleteSandbox(id: string): Promise<void>;

  private track(session: RemoteSession): RemoteSandbox {
    const id = session.sandboxId;
    const sandbox = new RemoteSandbox(session, this.execSlackMs, (closed) =>
      this.open.get(id)?.delete(closed),
    );
    const set = this.open.get(id) ?? new Set<RemoteSandbox>();
    set.add(sandbox);
    this.open.set(id, set);
    return sandbox;
  }
}
