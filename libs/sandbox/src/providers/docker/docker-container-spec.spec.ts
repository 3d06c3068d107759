import { describe, expect, it } from '@jest/globals';
import { DEFAULT_SANDBOX_SETTINGS } from '../sandbox-store.js';
import {
  containerName,
  containerSpec,
  type DockerContainerInput,
} from './docker-container-spec.js';
import { driverExecCommand } from './docker-session.js';

const input: DockerContainerInput = {
  sandboxId: 'thread-42',
  image: 'caravel/sandbox:bookworm',
  user: { uid: 1000, gid: 1001 },
  hostWorkspace: '/srv/sbx/thread-42/workspace',
  hostHome: '/srv/sbx/thread-42/home',
  env: { PATH: '/usr/bin:/bin', PAGER: 'cat', EMPTY: '', EQ: 'a=b' },
  limits: {
    maxProcesses: 64,
    maxMemoryBytes: 2 * 1024 ** 3,
    maxCpus: 1.5,
    maxFileBytes: 1024 ** 2,
    maxOpenFiles: 256,
    maxWorkspaceBytes: 1024 ** 3,
    maxTmpBytes: 32 * 1024 ** 2,
  },
  tmpBytes: 64 * 1024 ** 2,
};

describe('containerSpec', () => {
  it('binds the workspace and home, runs as the non-root user, with no network', () => {
    const spec = containerSpec(input);
    expect(spec.name).toBe('caravel-sbx-thread-42');
    expect(spec.Image).toBe('caravel/sandbox:bookworm');
    expect(spec.User).toBe('1000:1001');
    expect(spec.WorkingDir).toBe('/workspace');
    expect(spec.HostConfig?.Binds).toEqual([
      '/srv/sbx/thread-42/workspace:/workspace:rw',
      '/srv/sbx/thread-42/home:/home/agent:rw',
    ]);
    expect(spec.HostConfig?.NetworkMode).toBe('none');
    expect(spec.Env).toEqual(['PATH=/usr/bin:/bin', 'PAGER=cat', 'EMPTY=', 'EQ=a=b']);
    expect(spec.Labels).toEqual({
      'caravel.sandbox.id': 'thread-42',
      'caravel.sandbox.provider': 'docker',
    });
  });

  it('turns the sandbox limits into pids, memory, CPU and rlimits, on a locked-down root', () => {
    const host = containerSpec(input).HostConfig;
    expect(host).toMatchObject({
      PidsLimit: 64,
      Memory: 2 * 1024 ** 3,
      MemorySwap: 2 * 1024 ** 3,
      NanoCpus: 1_500_000_000,
      ReadonlyRootfs: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      Init: true,
      Tmpfs: { '/tmp': `rw,nosuid,nodev,mode=1777,size=${64 * 1024 ** 2}` },
    });
    expect(host?.Ulimits).toEqual([
      { Name: 'nofile', Soft: 256, Hard: 256 },
      { Name: 'fsize', Soft: 1024 ** 2, Hard: 1024 ** 2 },
    ]);
  });

  it('uses the library defaults as given, without inventing limits', () => {
    const host = containerSpec({ ...input, limits: DEFAULT_SANDBOX_SETTINGS.limits }).HostConfig;
    expect(host?.PidsLimit).toBe(DEFAULT_SANDBOX_SETTINGS.limits.maxProcesses);
    expect(host?.Memory).toBe(DEFAULT_SANDBOX_SETTINGS.limits.maxMemoryBytes);
  });

  it('keeps the network off with an egress proxy: its socket is bound and supervised instead', () => {
    const spec = containerSpec({
      ...input,
      egress: {
        hostSocketDir: '/run/caravel-egress/thread-42',
        socatPath: '/usr/bin/socat',
        port: 3128,
      },
    });
    expect(spec.HostConfig?.NetworkMode).toBe('none');
    expect(spec.HostConfig?.Binds).toContain('/run/caravel-egress/thread-42:/run/caravel:ro');
    expect(spec.Cmd?.slice(0, 4)).toEqual(['/bin/bash', '--noprofile', '--norc', '-c']);
    expect(spec.Cmd).toEqual(
      expect.arrayContaining(['/usr/bin/socat', '3128', '/run/caravel/egress.sock']),
    );
    expect(containerSpec(input).Cmd).toEqual(['/bin/sh', '-c', 'while :; do sleep 3600; done']);
  });

  it('names containers after the sandbox id', () => {
    expect(containerName('sbx-1')).toBe('caravel-sbx-sbx-1');
  });
});

describe('driverExecCommand', () => {
  it('starts the framed driver in the workspace behind a pid wrapper, without the host sweep', () => {
    const { cmd, killCmd } = driverExecCommand({
      sessionId: 'abc',
      bashPath: '/bin/bash',
      user: { uid: 1000, gid: 1000 },
      env: {},
      killGraceSeconds: 2,
    });
    expect(cmd.slice(0, 2)).toEqual(['/bin/bash', '-c']);
    expect(cmd.slice(3, 6)).toEqual(['caravel-exec', '/tmp/.caravel-abc.pid', '/bin/bash']);
    // Driver parameters: state dir, workdir, grace, sweep off, then ulimits left to the container.
    const params = cmd.slice(cmd.indexOf('caravel-session') + 1);
    expect(params).toEqual(['/tmp/.caravel/abc', '/workspace', '2', '0', '-', '-', '-', '-']);
    expect(killCmd.slice(-2)).toEqual(['/tmp/.caravel-abc.pid', '/tmp/.caravel/abc']);
  });
});
