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
  /**
   * Hosts reached without credentials; default: the public package registries. Empty (the
   * `none` of SANDBOX_EGRESS_ALLOWLIST): no way out at all, public GitHub reads included.
   */
  readonly allowlist?: readonly string[];
  /**
   * Where an allowlisted host is really reached (host → base URL): a registry mirror. An entry
   * for github.com serves its public reads (a GitHub mirror, or a test's local git server).
   */
  readonly upstreamOverrides?: Readonly<Record<string, string>>;
  /**
   * Whether public GitHub repositories may be read anonymously (see `openBuildEgress`); default:
   * yes, unless the allowlist is empty.
   */
  readonly publicGitHub?: boolean;
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

/** The GitHub a build names; it has no repository there, so no credential is ever used. */
const GITHUB = { gitHost: 'github.com', apiHost: 'api.github.com' } as const;

/**
 * GitHub's hosts that only ever serve reads (archives), tunnelled like a registry when public
 * GitHub reads are on: `github.com/<o>/<r>/archive/...` redirects to the first.
 */
const PUBLIC_GITHUB_READ_HOSTS: readonly string[] = ['codeload.github.com'];

const noToken: TokenSource = {
  getToken: () =>
    Promise.reject(swegenError('invalid_input', "a task's build has no GitHub credential")),
};

/**
 * Starts the egress proxy a task's build steps use as their only way out, the agent sandbox's
 * (`EgressProxy`): allowlisted hosts passed through, everything else, the host's own 127.0.0.1
 * included, refused with a 403 naming the host. It listens on a Unix socket in a directory of its
 * own (short, as a socket path must be), open to the sandbox's uid only.
 *
 * GitHub is read-only and anonymous (`publicGitHub`): a merged PR's Dockerfile may `git clone` or
 * `pip install git+https://github.com/...` a public repository (git is pointed at the proxy over
 * plain HTTP, which forwards it to https://github.com with no credential: a build has none, and
 * the sandbox's own Authorization is dropped) or fetch an archive from codeload.github.com. It
 * adds nothing the registries do not already give a build: public code anyone can download.
 * A push (`git-receive-pack`), the API and HTTPS tunnels to github.com, where the proxy could not
 * see a push, stay refused.
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
      ...githubPolicy(options),
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

/** The proxy's GitHub and allowlist for a build: see `openBuildEgress`. */
function githubPolicy(options: BuildEgressOptions) {
  const allowlist = options.allowlist ?? DEFAULT_EGRESS_ALLOWLIST;
  const publicGitHub = options.publicGitHub ?? allowlist.length > 0;
  const gitUpstream = options.upstreamOverrides?.[GITHUB.gitHost];
  return {
    github: { ...GITHUB, ...(gitUpstream ? { gitUpstream } : {}) },
    repository: null,
    publicGitHubReads: publicGitHub,
    allowlist: publicGitHub ? [...allowlist, ...PUBLIC_GITHUB_READ_HOSTS] : allowlist,
  };
}
