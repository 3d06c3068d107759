/** Where the proxy's socket directory appears inside a sandbox. */
export const INNER_EGRESS_DIR = '/run/caravel';
/** The proxy's socket name inside `INNER_EGRESS_DIR` (and in the host directory bound there). */
export const EGRESS_SOCKET_NAME = 'egress.sock';
/** The port the in-sandbox forwarder listens on, on the sandbox's own loopback. */
export const DEFAULT_EGRESS_PORT = 3128;
/**
 * Package registries a sandbox may reach out of the box, without credentials: the broker's
 * `SANDBOX_EGRESS_ALLOWLIST` default, and what a task's build steps reach (`caravel swegen`, evals).
 */
export const DEFAULT_EGRESS_ALLOWLIST: readonly string[] = [
  'registry.npmjs.org',
  'registry.yarnpkg.com',
  'pypi.org',
  'files.pythonhosted.org',
  'proxy.golang.org',
  'sum.golang.org',
  'index.crates.io',
  'static.crates.io',
  'repo.maven.apache.org',
  'repo1.maven.org',
  'rubygems.org',
];
/** The only GitHub "token" that ever exists inside a sandbox. */
export const PLACEHOLDER_TOKEN = 'caravel-placeholder';

/**
 * Runs as pid 1 of the sandbox (bubblewrap `--as-pid-1`). It starts the forwarder (socat: the
 * sandbox's 127.0.0.1:<port> to the proxy's Unix socket), waits until it answers, then starts the
 * session driver and waits for it alone. A forwarder that dies while the driver lives (killed by
 * the driver's post-timeout sweep, which spares pid 1 only, or by a command) is started again from
 * a SIGCHLD trap; when the driver ends, everything ends. As pid 1 it also reaps orphans.
 *
 * Waiting on the driver's pid, not `wait -n` on both: bash's `wait -n` overlooks a job that ended
 * while another command ran, so a driver that ended while the forwarder was being restarted left
 * pid 1 waiting on the forwarder for ever, and the sandbox never ended. Job notices of the swept
 * processes go nowhere (pid 1's stderr turns to /dev/null once the driver holds its own). Positional
 * parameters: socat path, port, socket path, then the driver's command line.
 */
const SUPERVISOR_SCRIPT = String.raw`socat=$1 port=$2 sock=$3
shift 3
forward() {
  "$socat" "TCP-LISTEN:$port,bind=127.0.0.1,fork,reuseaddr" "UNIX-CONNECT:$sock" 2>/dev/null &
  f=$!
}
forward
for i in $(seq 1 200); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.01
done
"$@" <&0 &
d=$!
exec 0</dev/null 2>/dev/null
trap 'kill -0 "$f" 2>/dev/null || ! kill -0 "$d" 2>/dev/null || forward' CHLD
wait "$d"
status=$?
trap - CHLD
kill "$f" 2>/dev/null
exit "$status"
`;

/** `bash` arguments that run `command` under the egress supervisor. */
export function egressSupervisorArguments(options: {
  readonly socatPath: string;
  readonly port: number;
  readonly command: readonly string[];
}): string[] {
  return [
    '--noprofile',
    '--norc',
    '-c',
    SUPERVISOR_SCRIPT,
    'caravel-egress',
    options.socatPath,
    String(options.port),
    `${INNER_EGRESS_DIR}/${EGRESS_SOCKET_NAME}`,
    ...options.command,
  ];
}

/** What the sandbox's tools need to know to use the proxy. */
export interface SandboxEgressSettings {
  /** The git host remotes name inside the sandbox, e.g. `github.com`. */
  readonly gitHost: string;
  /** The API host, e.g. `api.github.com`. */
  readonly apiHost: string;
  readonly port?: number;
}

/**
 * The environment that points a sandbox's tools at the proxy: `http(s)_proxy` for curl, pip, npm
 * and friends; git configuration through `GIT_CONFIG_*` (nothing written to disk) that rewrites
 * `https://<gitHost>/` to plain `http://` so the proxy can see and authorize the request, and a
 * credential helper that only ever answers the placeholder; `GH_TOKEN` set to the placeholder
 * because `gh` insists on one. No real credential appears here.
 */
export function sandboxEgressEnvironment(settings: SandboxEgressSettings): Record<string, string> {
  const proxy = `http://127.0.0.1:${settings.port ?? DEFAULT_EGRESS_PORT}`;
  const helper = `!f() { echo username=x-access-token; echo password=${PLACEHOLDER_TOKEN}; }; f`;
  const git: [string, string][] = [
    ['http.proxy', proxy],
    [`url.http://${settings.gitHost}/.insteadOf`, `https://${settings.gitHost}/`],
    ['credential.helper', ''],
    ['credential.helper', helper],
  ];
  const env: Record<string, string> = {
    http_proxy: proxy,
    https_proxy: proxy,
    HTTP_PROXY: proxy,
    HTTPS_PROXY: proxy,
    no_proxy: '',
    NO_PROXY: '',
    GH_TOKEN: PLACEHOLDER_TOKEN,
    GITHUB_TOKEN: PLACEHOLDER_TOKEN,
    GH_HOST: settings.gitHost,
    GIT_CONFIG_COUNT: String(git.length),
  };
  git.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return env;
}
