import { openBuildEgress } from './build-egress.js';
import { taskSandboxArguments } from './task-sandbox.js';

describe("a task build's network", () => {
  it('is refused in one line when socat, its way to the proxy, is missing', async () => {
    await expect(openBuildEgress({ socatPath: '/nonexistent/socat' })).rejects.toMatchObject({
      message:
        "socat is not installed (/nonexistent/socat): a task's build reaches the package " +
        'registries through it; apt-get install socat',
    });
  });

  it("never shares the host's network: the proxy's socket and the supervisor, or nothing", async () => {
    const base = {
      command: 'npm ci',
      cwd: '/app',
      mounts: [],
      timeoutMs: 1000,
      logFile: '/dev/null',
    };
    const offline = await taskSandboxArguments(base);
    const proxied = await taskSandboxArguments({
      ...base,
      egress: { socketDir: '/tmp/egress/socket', socatPath: '/usr/bin/socat' },
    });
    for (const args of [offline, proxied]) {
      expect(args).toContain('--unshare-all');
      expect(args).not.toContain('--share-net');
    }
    expect(offline).not.toContain('/run/caravel');
    expect(offline.slice(-4)).toEqual(['--', '/bin/bash', '-c', 'npm ci']);
    expect(proxied.join(' ')).toContain('--ro-bind /tmp/egress/socket /run/caravel');
    expect(proxied).toContain('--as-pid-1');
    expect(proxied.slice(-3)).toEqual(['/bin/bash', '-c', 'npm ci']);
  });
});
