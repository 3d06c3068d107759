import { posix } from 'node:path';
import { parse } from 'yaml';
import type { z } from 'zod';
import { SERVICES } from '@caravel/cli';
import { readRepoFile } from './deployment-checks.js';
import { collected, parseDockerfile, type Stage } from './dockerfile-stages.js';

// The images and compose services that run a sandbox broker must be able to run its default
// provider: without these, every sandbox request fails "bubblewrap is not installed" in a
// container although every static check of the file passes. No Docker engine here, so the
// checks read the Dockerfile and the compose file; the packages follow the binaries that
// libs/sandbox spawns by default (/usr/bin/bwrap, /usr/bin/socat, git).

/** Debian packages each sandbox provider needs on the broker's host (the image). */
const PROVIDER_PACKAGES: Record<string, readonly string[]> = {
  bwrap: ['bubblewrap', 'socat', 'git', 'ca-certificates'],
  local: ['git'],
};

/** Targets whose process runs the sandbox broker. */
const BROKER_TARGETS = ['sandbox-broker', 'caravel'];

/** Security options bubblewrap needs in a Docker container (user namespaces and a fresh /proc). */
const BWRAP_SECURITY_OPTS = ['seccomp=unconfined', 'systempaths=unconfined'];

const brokerSchema = SERVICES.find((s) => s.name === 'sandbox-broker')!.schema;

function defaultProvider(): string {
  return String((brokerSchema.shape['SANDBOX_PROVIDER'] as z.ZodType).parse(undefined));
}

/** Packages the `apt-get install` lines along a target's stage chain install. */
function installedPackages(stages: readonly Stage[], target: string): string[] {
  return collected(stages, target, 'RUN').flatMap((run) =>
    [...run.matchAll(/apt-get install\s+((?:[^;&|]+))/g)].flatMap((m) =>
      m[1]!.split(/\s+/).filter((word) => word !== '' && !word.startsWith('-')),
    ),
  );
}

/** The value of `name` that the last ENV along a target's chain sets, if any. */
function envValue(stages: readonly Stage[], target: string, name: string): string | undefined {
  const pattern = new RegExp(`(?:^|\\s)${name}=(\\S+)`);
  return collected(stages, target, 'ENV')
    .map((env) => pattern.exec(env)?.[1])
    .find((value) => value !== undefined);
}

function volumesOf(stages: readonly Stage[], target: string): string[] {
  return collected(stages, target, 'VOLUME').flatMap((v) => JSON.parse(v) as string[]);
}

const under = (path: string, dir: string): boolean =>
  !posix.relative(dir, path).startsWith('..') && posix.isAbsolute(path);

/** Problems of a broker target in the Dockerfile: packages missing, sandboxes off a volume. */
function brokerImageProblems(text: string, provider: string): string[] {
  const stages = parseDockerfile(text);
  return BROKER_TARGETS.flatMap((target) => {
    const installed = new Set(installedPackages(stages, target));
    const problems = (PROVIDER_PACKAGES[provider] ?? [])
      .filter((pkg) => !installed.has(pkg))
      .map((pkg) => `${target}: does not install ${pkg} (the ${provider} provider needs it)`);
    const root = envValue(stages, target, 'SANDBOX_ROOT');
    if (!root) problems.push(`${target}: does not set SANDBOX_ROOT`);
    else if (!volumesOf(stages, target).some((volume) => under(root, volume)))
      problems.push(`${target}: SANDBOX_ROOT ${root} is not on a VOLUME`);
    return problems;
  });
}

type ComposeService = Record<string, unknown>;

function loadCompose(): Record<string, ComposeService> {
  const compose = parse(readRepoFile('docker-compose.yml'), { merge: true }) as {
    services: Record<string, ComposeService>;
  };
  return compose.services;
}

/** Problems of a broker's compose service: sandboxes off a volume, root writable, no userns. */
function brokerComposeProblems(name: string, service: ComposeService, root: string): string[] {
  const problems: string[] = [];
  const mounts = ((service['volumes'] as unknown[] | undefined) ?? []).map(String);
  const onVolume = mounts.some((mount) => {
    const [source = '', target = ''] = mount.split(':');
    return !source.startsWith('.') && !source.startsWith('/') && under(root, target);
  });
  if (!onVolume) problems.push(`${name}: SANDBOX_ROOT ${root} is not on a named volume`);
  const options = ((service['security_opt'] as unknown[] | undefined) ?? []).map(String);
  for (const option of BWRAP_SECURITY_OPTS)
    if (!options.includes(option)) problems.push(`${name}: security_opt lacks ${option}`);
  return problems;
}

describe('images and compose services that run sandboxes', () => {
  const dockerfile = readRepoFile('infra/docker/Dockerfile');
  const stages = parseDockerfile(dockerfile);
  const services = loadCompose();

  it("install what the broker's default provider runs, with the sandboxes on a volume", () => {
    expect(defaultProvider()).toBe('bwrap');
    expect(brokerImageProblems(dockerfile, defaultProvider())).toEqual([]);
  });

  it('keep the other services free of the sandbox packages', () => {
    const others = SERVICES.map((s) => s.name).filter((n) => !BROKER_TARGETS.includes(n));
    expect(others.filter((name) => installedPackages(stages, name).length > 0)).toEqual([]);
  });

  it('run the compose broker read-only, sandboxes on a named volume, user namespaces allowed', () => {
    const broker = services['sandbox-broker']!;
    const root = envValue(stages, 'sandbox-broker', 'SANDBOX_ROOT')!;
    expect(brokerComposeProblems('sandbox-broker', broker, root)).toEqual([]);
    expect(broker['read_only']).toBe(true);
    expect(broker['tmpfs']).toEqual(['/tmp']);
    const caravel = services['caravel']!;
    expect(
      brokerComposeProblems('caravel', caravel, envValue(stages, 'caravel', 'SANDBOX_ROOT')!),
    ).toEqual([]);
  });

  it("mount the chart broker's SANDBOX_ROOT on the sandboxes volume, in its own user namespace", () => {
    const values = parse(readRepoFile('infra/helm/caravel/values.yaml')) as {
      sandboxes: { mountPath: string };
      services: { name: string; env: Record<string, string>; hostUsers?: boolean }[];
    };
    const broker = values.services.find((s) => s.name === 'sandbox-broker')!;
    expect(under(broker.env['SANDBOX_ROOT']!, values.sandboxes.mountPath)).toBe(true);
    expect(broker.hostUsers).toBe(false);
    const deployment = readRepoFile('infra/helm/caravel/templates/deployment.yaml');
    expect(deployment).toMatch(
      /if eq \$svc\.name "sandbox-broker" \}\}\n\s+- name: sandboxes\n\s+mountPath: \{\{ \$\.Values\.sandboxes\.mountPath \}\}/,
    );
  });

  it('publish no dashboard reads beyond the host: only the ingress on every interface', () => {
    const published = Object.entries(services).flatMap(([name, service]) =>
      ((service['ports'] as unknown[] | undefined) ?? [])
        .map(String)
        .filter((port) => !port.startsWith('127.0.0.1:'))
        .map((port) => `${name} ${port}`),
    );
    expect(published).toEqual(['ingress 3001:3001']);
  });

  describe('catches a broken copy', () => {
    it('with socat missing or the sandboxes off the volume', () => {
      const edited = dockerfile
        .replace('bubblewrap socat git', 'bubblewrap git')
        .replace('SANDBOX_ROOT=/var/lib/caravel/sandboxes', 'SANDBOX_ROOT=/app/.caravel');
      expect(brokerImageProblems(edited, 'bwrap')).toEqual([
        'sandbox-broker: does not install socat (the bwrap provider needs it)',
        'sandbox-broker: SANDBOX_ROOT /app/.caravel is not on a VOLUME',
        'caravel: does not install socat (the bwrap provider needs it)',
      ]);
    });

    it('with a bind mount instead of a volume, or the default seccomp profile', () => {
      const broker = {
        ...services['sandbox-broker']!,
        volumes: ['./sandboxes:/var/lib/caravel'],
        security_opt: ['apparmor=unconfined'],
      };
      expect(brokerComposeProblems('b', broker, '/var/lib/caravel/sandboxes')).toEqual([
        'b: SANDBOX_ROOT /var/lib/caravel/sandboxes is not on a named volume',
        'b: security_opt lacks seccomp=unconfined',
        'b: security_opt lacks systempaths=unconfined',
      ]);
    });
  });
});
