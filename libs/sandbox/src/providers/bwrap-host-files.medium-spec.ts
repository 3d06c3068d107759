import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testEnvironment } from '@caravel/testing';
import type { Sandbox } from '../sandbox.types.js';
import { BwrapSandboxProvider, bwrapAvailable } from './bwrap.provider.js';

const missing = !bwrapAvailable();
if (missing && !testEnvironment.CI) {
  process.stdout.write('skipped: bubblewrap is not installed (apt-get install bubblewrap)\n');
}
const describeBwrap = missing && !testEnvironment.CI ? describe.skip : describe;

describeBwrap('what a bwrap sandbox sees of the host', () => {
  let rootDir: string;
  let provider: BwrapSandboxProvider;
  let box: Sandbox;

  beforeAll(async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'caravel-host-files-'));
    await chmod(rootDir, 0o755);
    provider = new BwrapSandboxProvider({ rootDir });
    box = await provider.create();
  }, 60_000);

  afterAll(async () => {
    await box?.close();
    await rm(rootDir, { recursive: true, force: true });
  });

  it("cannot read the host's /etc/gitconfig, /etc/shadow, ssh config or anything in /opt", async () => {
    // Each path is read inside; the host has /etc/shadow and /opt on any Debian-like system.
    expect(existsSync('/etc/shadow')).toBe(true);
    const paths = [
      '/etc/gitconfig',
      '/etc/shadow',
      '/etc/gshadow',
      '/etc/ssh',
      '/etc/npmrc',
      '/opt',
    ];
    const result = await box.exec(
      paths
        .map((path) => `test -e ${path} && echo "visible ${path}" || echo "absent ${path}"`)
        .join('; '),
    );
    expect(result.output).toBe(paths.map((path) => `absent ${path}\n`).join(''));
    const config = await box.exec('git config --system --list 2>&1; echo "exit $?"');
    expect(config.output).not.toContain('credential');
  });

  it('has its own passwd, group, hosts and hostname, naming the sandbox user', async () => {
    const result = await box.exec(
      'id -un; id -gn; getent passwd agent | cut -d: -f6; cat /etc/hostname; getent hosts localhost | head -n 1; cat /etc/passwd | wc -l',
    );
    const [user, group, home, hostname, localhost, lines] = result.output.split('\n');
    expect({ user, group, home, hostname }).toEqual({
      user: 'agent',
      group: 'agent',
      home: '/home/agent',
      hostname: 'caravel-sandbox',
    });
    expect(localhost).toMatch(/^(127\.0\.0\.1|::1)\s+localhost/);
    expect(Number(lines)).toBe(3);
  });

  it('keeps what toolchains need: certificates, the linker cache, the time zone; git, Python and Java run', async () => {
    const wanted = ['/etc/ssl/certs/ca-certificates.crt', '/etc/ld.so.cache', '/etc/localtime'];
    const present = wanted.filter((path) => existsSync(path));
    expect(present.length).toBeGreaterThan(0);
    const files = await box.exec(present.map((path) => `test -r ${path} && echo ok`).join('; '));
    expect(files.output).toBe('ok\n'.repeat(present.length));
    expect((await box.exec('git --version >/dev/null && echo git ok')).output).toBe('git ok\n');
    if (existsSync('/usr/bin/python3')) {
      const tls = 'import ssl; ssl.create_default_context(); print("tls ok")';
      expect((await box.exec(`python3 -c '${tls}'`)).output).toBe('tls ok\n');
    }
    if (existsSync('/usr/bin/java')) {
      // The JDK's conf/ is a symlink into /etc/java-*: without it java does not start.
      const java = await box.exec('java -version 2>&1; echo "exit $?"');
      expect(java.output).toContain('exit 0');
    }
  });
});
