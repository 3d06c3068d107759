import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRepoFile } from './deployment-checks.js';

const CONF = 'infra/nats/nats.conf';

/** The conf without comments, so assertions see settings only. */
function settings(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, '').trimEnd())
    .filter((line) => line.trim() !== '')
    .join('\n');
}

/** The body of the top-level `jetstream { … }` block, or undefined. */
function jetstreamBlock(text: string): string | undefined {
  return /^jetstream\s*\{\n([\s\S]*?)\n\}/m.exec(settings(text))?.[1];
}

function confProblems(text: string): string[] {
  const block = jetstreamBlock(text);
  if (block === undefined) return ['no jetstream { } block'];
  const problems: string[] = [];
  if (!/^\s*store_dir:\s*"?\/\S+"?$/m.test(block))
    problems.push('jetstream has no absolute store_dir');
  if (!/^\s*sync_interval:\s*always$/m.test(block))
    problems.push('jetstream does not fsync before each ack');
  if (!/^http_port:\s*8222$/m.test(settings(text))) problems.push('monitoring is not on 8222');
  return problems;
}

function natsServerVersion(): string | undefined {
  const result = spawnSync('nats-server', ['--version'], { encoding: 'utf8' });
  return result.error
    ? undefined
    : /v(\d+\.\d+\.\d+)/.exec(`${result.stdout}${result.stderr}`)?.[1];
}

/** `nats-server -t` on a copy of the conf: the exit status and what it printed. */
function testConf(text: string): { ok: boolean; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'caravel-nats-conf-'));
  try {
    const file = join(dir, 'nats.conf');
    writeFileSync(file, text);
    const result = spawnSync('nats-server', ['-c', file, '-t'], { encoding: 'utf8' });
    return { ok: result.status === 0, output: `${result.stdout}${result.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('infra/nats/nats.conf', () => {
  const text = readRepoFile(CONF);

  it('enables JetStream on a store dir with sync_interval: always and monitoring on 8222', () => {
    expect(confProblems(text)).toEqual([]);
  });

  it('says which server line it needs', () => {
    expect(text).toMatch(/2\.10/);
    expect(readRepoFile('docker-compose.yml')).toMatch(/image: nats:2\.10/);
  });

  it('catches a conf without JetStream or with the default fsync interval', () => {
    expect(confProblems('port: 4222\nhttp_port: 8222\n')).toEqual(['no jetstream { } block']);
    expect(confProblems(text.replace(/sync_interval: always/, 'sync_interval: "2m"'))).toEqual([
      'jetstream does not fsync before each ack',
    ]);
    expect(
      confProblems(text.replace(/^(\s*)sync_interval: always$/m, '$1# sync_interval: always')),
    ).toEqual(['jetstream does not fsync before each ack']);
  });

  // The installed nats-server (Debian ships 2.9.10) checks the file for real. 2.9 knows every
  // setting but sync_interval, so the file minus that line must pass there, and the whole file
  // must pass on 2.10+.
  const version = natsServerVersion();
  const withServer = version ? it : it.skip;

  withServer(`is accepted by the installed nats-server (${version ?? 'not installed'})`, () => {
    const [major = 0, minor = 0] = (version ?? '0.0').split('.').map(Number);
    if (major > 2 || (major === 2 && minor >= 10)) {
      expect(testConf(text)).toMatchObject({ ok: true });
    } else {
      const whole = testConf(text);
      expect(whole.ok).toBe(false);
      expect(whole.output).toMatch(/unknown field "sync_interval"/);
      expect(testConf(text.replace(/^\s*sync_interval:.*$/m, ''))).toMatchObject({ ok: true });
    }
  });
});
