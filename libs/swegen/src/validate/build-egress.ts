import {
  DEFAULT_EGRESS_ALLOWLIST,
  EGRESS_SOCKET_NAME,
  EgressProxy,
  sandboxEgressEnvironment,
  type EgressEvent,
  type TokenSource,
} from '@caravel/sandbox';
import { constants } from 'node:fs';
import { access, chmod, chown, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { swegenError } from '../errors/swegen-errors.js';
import { TASK_SANDBOX_OWNER, type TaskEgress } from './task-sandbox.js';

/** What a task's build steps may reach (the egress proxy's allowlist). */
export interface BuildEgressOptions {
  /** Hosts reached without credentials; default: the public package registries. */
  readonly allowlist?: readonly string[];
  /** Where an allowlisted host is really reached (host → base URL): a registry mirror. */
  readonly upstreamOverrides?: Readonly<Record<string, string>>;
  /** The forwarder inside the sandbox, seen through the host's /usr (default /usr/bin/socat). */
  readonly socatPath?: string;
}

/** A running egress proxy for one build: its socket for the sandbox, and `environment` to set. */
export interface BuildEgress extends TaskEgress {
  /** The proxy variables (and git's configuration) pointing the build's tools at it. */
  readonly environment: Readonly<Record<string, string>>;
  /** The requests refused since the last call, one line each (for the build log). */
  takeRefusals(): string[];
  close(): Promise<void>;
}

/** The GitHub a build names; with no repository the proxy refuses it (no credential exists). */
const GITHUB = { gitHost: 'github.com', apiHost: 'api.github.com' } as const;

const noToken: TokenSource = {
  getToken: () =>
    Promise.reject(swegenError('invalid_input', "a task's build has no GitHub credential")),
};

/**
 * Starts the egress proxy a task's build steps use as their only way out, the agent sandbox's
 * (`EgressProxy`): allowlisted hosts passed through, GitHub and everything else, the host's own
 * 127.0.0.1 included, refused with a 403 naming the host. It listens on a Unix socket in a
 * directory of its own (short, as a socket path must be), open to the sandbox's uid only.
 */
export async function openBuildEgress(options: BuildEgressOptions = {}): Promise<BuildEgress> {
  const socatPath = options.socatPath ?? '/usr/bin/socat';
  await access(socatPath, constants.X_OK).catch(() => {
    throw swegenError(
      'invalid_input',
      `socat is not installed (${socatPath}): a task's build reaches the package registries ` +
        'through it; apt-get install socat',
    );
  });
  const dir = await mkdtemp(join(tmpdir(), 'caravel-build-egress-'));
  const socketDir = join(dir, 'socket');
  const refusals: string[] = [];
  try {
    await mkdir(socketDir, { mode: 0o700 });
    if (process.getuid?.() === 0) {
      await chmod(dir, 0o711);
      await chown(socketDir, TASK_SANDBOX_OWNER.uid, TASK_SANDBOX_OWNER.gid);
    }
    const proxy = new EgressProxy({
      github: GITHUB,
      repository: null,
      allowlist: options.allowlist ?? DEFAULT_EGRESS_ALLOWLIST,
      ...(options.upstreamOverrides ? { upstreamOverrides: options.upstreamOverrides } : {}),
      tokenSource: noToken,
      onEvent: (event: EgressEvent) => {
        if (event.kind !== 'allowed') refusals.push(`${event.method} ${event.host}`);
      },
    });
    await proxy.listen({ socketPath: join(socketDir, EGRESS_SOCKET_NAME) });
    return {
      socketDir,
      socatPath,
      environment: sandboxEgressEnvironment(GITHUB),
      takeRefusals: () => refusals.splice(0),
      close: async () => {
        await proxy.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
