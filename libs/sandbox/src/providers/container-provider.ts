import type { FileOwner } from '../files/workdir-files.js';
import type { Sandbox, SandboxProviderName, SandboxSpec } from '../sandbox.types.js';
import { containerUser, createRemovingLeftovers, handOver } from './container-sandbox.js';
import { DirectoryProvider } from './directory-provider.js';
import {
  DEFAULT_SANDBOX_SETTINGS,
  SandboxStore,
  type SandboxDefaults,
  type SandboxPaths,
} from './sandbox-store.js';

/** The settings every container provider (`docker`, `kubernetes`) reads here. */
export interface ContainerProviderOptions {
  /** Where sandbox directories live on this host (`<rootDir>/<id>/{workspace,home}`). */
  readonly rootDir: string;
  /** The non-root user commands run as (see `containerUser`). */
  readonly user?: FileOwner;
  readonly defaults?: SandboxDefaults;
}

/**
 * The lifecycle shared by providers whose sandbox is a host directory run in a container (or a
 * pod) as a non-root user: the directory is handed to that user; a create that fails removes what
 * it left of the container; delete removes the container before the directory.
 */
export abstract class ContainerProvider extends DirectoryProvider {
  /** The user commands and file operations run as inside the container. */
  protected readonly user: FileOwner;
  private readonly chownTo: FileOwner | undefined;

  protected constructor(name: SandboxProviderName, options: ContainerProviderOptions) {
    super(new SandboxStore(options.rootDir, name, options.defaults ?? DEFAULT_SANDBOX_SETTINGS));
    ({ user: this.user, chownTo: this.chownTo } = containerUser(options.user));
  }

  override create(spec: SandboxSpec = {}): Promise<Sandbox> {
    return createRemovingLeftovers(
      spec,
      (fixed) => super.create(fixed),
      (id) => this.removeContainer(id),
    );
  }

  override async delete(id: string): Promise<void> {
    await this.store.load(id);
    await this.removeContainer(id);
    await super.delete(id);
  }

  protected prepare(paths: SandboxPaths): Promise<void> {
    return handOver(paths, this.chownTo);
  }

  /** Removes the sandbox's container or pod; one that is already gone is no error. */
  protected abstract removeContainer(id: string): Promise<void>;
}
