import { readdir, readFile } from 'node:fs/promises';
import { createServer, type Server as HttpServer } from 'node:http';
import {
  createServer as createTcpServer,
  type AddressInfo,
  type Server as TcpServer,
} from 'node:net';
import { join } from 'node:path';
import type { ExecResult } from '../sandbox.types.js';

/** Runs a command in the sandbox under test (a provider's sandbox, or `RpcSandbox`). */
export type RunInSandbox = (command: string) => Promise<ExecResult>;

/** Starts `server` on a free port of 127.0.0.1 and returns the port. */
export async function listenOnLoopback(server: HttpServer | TcpServer): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Every regular file under `dir`, as latin1 text (symlinks and specials skipped). */
export async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else if (entry.isFile()) out.push((await readFile(path)).toString('latin1'));
  }
  return out;
}

/** Where a credential that leaked into a sandbox would show. */
export interface SecretPlaces {
  readonly env: string;
  /** Every process's environment, one variable a line. */
  readonly environ: string;
  /** `git config --list --show-origin` in the workdir, `~/.gitconfig` and `repoPath`'s config. */
  readonly gitConfig: string;
  /** Every regular file of the sandbox's directory on the host (workspace, home, record). */
  readonly files: readonly string[];
}

/** Gathers what a sandbox shows of itself where a leaked credential would be. */
export async function secretPlaces(
  run: RunInSandbox,
  hostDir: string,
  repoPath = '.',
): Promise<SecretPlaces> {
  const env = (await run('env')).output;
  const environ = (await run("for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < \"$f\"; done"))
    .output;
  const gitConfig = (
    await run(`git config --list --show-origin 2>&1; cat ~/.gitconfig ${repoPath}/.git/config 2>&1`)
  ).output;
  return { env, environ, gitConfig, files: await filesUnder(hostDir) };
}

/** Which of `tokens` appear in which place (none, when nothing leaked). */
export function tokenLeaks(tokens: readonly string[], places: SecretPlaces): string[] {
  const texts = [places.env, places.environ, places.gitConfig, ...places.files];
  return tokens.filter((token) => texts.some((text) => text.includes(token)));
}

/**
 * A host port probed from inside the sandbox: `direct` is the output of a plain TCP connect
 * (`open` when it connected, empty otherwise), `viaProxy` the HTTP status the egress proxy gave.
 */
export async function probeHostPort(
  run: RunInSandbox,
  port: number,
): Promise<{ direct: string; viaProxy: string }> {
  const direct = await run(`(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo open`);
  const viaProxy = await run(`curl -sS -o /dev/null -w '%{http_code}' http://127.0.0.1:${port}/`);
  return { direct: direct.output, viaProxy: viaProxy.output };
}

/** Loopback servers an egress test aims at: an allowlistable "registry" and a host service. */
export interface EgressTargets {
  /** Answers `package <path>`; mirror an allowlisted name (`registry.test`) to it. */
  readonly registryUrl: string;
  /** The Authorization header of each request the registry received, in order. */
  readonly registryAuth: readonly (string | undefined)[];
  /** A plain TCP service on 127.0.0.1 that no sandbox may reach. */
  readonly hostServicePort: number;
  close(): Promise<void>;
}

/** Starts the {@link EgressTargets}. */
export async function startEgressTargets(): Promise<EgressTargets> {
  const registryAuth: (string | undefined)[] = [];
  const registry = createServer((incoming, response) => {
    registryAuth.push(incoming.headers.authorization);
    response.end(`package ${incoming.url ?? ''}\n`);
  });
  const hostService = createTcpServer((socket) => socket.end('host service\n'));
  const registryPort = await listenOnLoopback(registry);
  const hostServicePort = await listenOnLoopback(hostService);
  return {
    registryUrl: `http://127.0.0.1:${registryPort}`,
    registryAuth,
    hostServicePort,
    close: async () => {
      registry.closeAllConnections();
      await Promise.all(
        [registry, hostService].map((server) => new Promise((resolve) => server.close(resolve))),
      );
    },
  };
}
