import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testEnvironment } from '@caravel/testing';
import { bwrapArguments, type BwrapLayout } from '../providers/bwrap-arguments.js';
import { bwrapAvailable } from '../providers/bwrap.provider.js';
import { DEFAULT_EGRESS_PORT } from './sandbox-egress.js';

const missing = !bwrapAvailable() || !execFileSync('sh', ['-c', 'command -v socat || true']).length;
const describeIf = missing && !testEnvironment.CI ? describe.skip : describe;

/**
 * The pid-1 supervisor on its own, in a real bubblewrap sandbox, with a stand-in for the session
 * driver. No proxy listens: the forwarder only has to accept on the sandbox's loopback.
 */
describeIf('egress supervisor (pid 1 of a bubblewrap sandbox)', () => {
  let root: string;
  let layout: BwrapLayout;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'caravel-supervisor-'));
    for (const dir of ['home', 'workspace', 'egress']) await mkdir(join(root, dir));
    for (const dir of ['', 'home', 'workspace', 'egress']) await chmod(join(root, dir), 0o777);
    layout = {
      systemMounts: [
        { kind: 'ro-bind', path: '/usr' },
        { kind: 'symlink', path: '/bin', target: 'usr/bin' },
        { kind: 'symlink', path: '/lib', target: 'usr/lib' },
        { kind: 'symlink', path: '/lib64', target: 'usr/lib64' },
      ],
      hostWorkspace: join(root, 'workspace'),
      hostHome: join(root, 'home'),
      innerWorkspace: '/workspace',
      innerHome: '/home/agent',
      sandboxUid: 1000,
      sandboxGid: 1000,
      hostname: 'caravel-supervisor',
      bashPath: '/bin/bash',
      egress: {
        hostSocketDir: join(root, 'egress'),
        socatPath: '/usr/bin/socat',
        port: DEFAULT_EGRESS_PORT,
      },
    };
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** Runs `script` as the driver; resolves with the sandbox's exit code once bubblewrap ends. */
  async function runDriver(script: string): Promise<{ code: number | null; output: string }> {
    const child = spawn('bwrap', bwrapArguments(layout, ['-c', script]), {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    return { code, output };
  }

  it('ends with the driver when the driver ends while its swept forwarder is being restarted', async () => {
    // The sweep kills the forwarder; the driver ends right after, while pid 1 starts another.
    // A supervisor that waited with `wait -n` on both missed the driver's end and never returned.
    for (let round = 0; round < 5; round += 1) {
      const { code, output } = await runDriver('kill -KILL -1; sleep 0.02; exit 5');
      expect({ round, code, output }).toEqual({ round, code: 5, output: '' });
    }
  });

  it('starts the forwarder again each time something inside kills it', async () => {
    const { code, output } = await runDriver(
      [
        'for round in 1 2 3; do',
        '  kill -KILL -1',
        '  for i in $(seq 1 500); do',
        `    (exec 3<>/dev/tcp/127.0.0.1/${DEFAULT_EGRESS_PORT}) 2>/dev/null && break`,
        '    sleep 0.01',
        '  done',
        `  (exec 3<>/dev/tcp/127.0.0.1/${DEFAULT_EGRESS_PORT}) 2>/dev/null || { echo "no forwarder after round $round"; exit 9; }`,
        'done',
        'exit 0',
      ].join('\n'),
    );
    expect({ code, output }).toEqual({ code: 0, output: '' });
  });
});
