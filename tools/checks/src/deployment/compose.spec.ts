import { parse } from 'yaml';
import { embeddedEnvSchema, SERVICES } from '@caravel/cli';
import {
  composeEnv,
  defaultPort,
  envProblems,
  isRecord,
  readRepoFile,
  type ServiceSpec,
} from './deployment-checks.js';

type ComposeService = Record<string, unknown>;
type Compose = { services: Record<string, ComposeService> };

const INFRA = new Set(['nats', 'postgres', 'caravel']);
/** The one service published on every interface: webhooks are signed, everything else is not. */
const PUBLIC = new Set(['ingress']);

function loadCompose(): Compose {
  // merge: compose resolves `<<: *anchor` (YAML 1.1 merge keys), so the test must too.
  return parse(readRepoFile('docker-compose.yml'), { merge: true }) as Compose;
}

function healthcheckProblems(name: string, service: ComposeService): string[] {
  const healthcheck = service['healthcheck'];
  const test = isRecord(healthcheck) ? healthcheck['test'] : undefined;
  const command = Array.isArray(test) ? test.join(' ') : typeof test === 'string' ? test : '';
  return command.includes('/health/live')
    ? []
    : [`${name}: healthcheck does not probe /health/live`];
}

function dependsOnProblems(name: string, service: ComposeService): string[] {
  const dependsOn = service['depends_on'];
  return ['nats', 'postgres']
    .filter(
      (dep) =>
        !isRecord(dependsOn) ||
        !isRecord(dependsOn[dep]) ||
        dependsOn[dep]['condition'] !== 'service_healthy',
    )
    .map((dep) => `${name}: does not wait for a healthy ${dep}`);
}

/** Every problem of the compose file for the given services; empty when it is right. */
function composeProblems(compose: Compose, services: readonly ServiceSpec[]): string[] {
  const problems: string[] = [];
  const names = new Set(services.map((s) => s.name));
  for (const name of Object.keys(compose.services)) {
    if (!names.has(name) && !INFRA.has(name)) problems.push(`${name}: not a Caravel service`);
  }
  for (const spec of services) {
    const service = compose.services[spec.name];
    if (!service) {
      problems.push(`${spec.name}: missing from docker-compose.yml`);
      continue;
    }
    const port = defaultPort(spec.schema);
    const build = service['build'];
    if (
      !isRecord(build) ||
      build['target'] !== spec.name ||
      build['dockerfile'] !== 'infra/docker/Dockerfile'
    ) {
      problems.push(`${spec.name}: not built from infra/docker/Dockerfile --target ${spec.name}`);
    }
    const ports = (service['ports'] as unknown[] | undefined)?.map(String) ?? [];
    const expected = PUBLIC.has(spec.name) ? `${port}:${port}` : `127.0.0.1:${port}:${port}`;
    if (!ports.includes(expected))
      problems.push(`${spec.name}: port ${port} is not published as ${expected}`);
    const env = composeEnv(service['environment']);
    if (env['PORT'] !== String(port))
      problems.push(`${spec.name}: PORT is ${env['PORT']}, not ${port}`);
    problems.push(...envProblems('docker-compose.yml', spec, env));
    problems.push(
      ...healthcheckProblems(spec.name, service),
      ...dependsOnProblems(spec.name, service),
    );
  }
  return problems;
}

describe('docker-compose.yml', () => {
  const compose = loadCompose();

  it('runs every service with its port, env, healthcheck and dependencies', () => {
    expect(composeProblems(compose, SERVICES)).toEqual([]);
  });

  it('sets NATS_URL, DATABASE_URL, PORT and LOG_LEVEL for every service', () => {
    for (const { name } of SERVICES) {
      expect(Object.keys(composeEnv(compose.services[name]?.['environment']))).toEqual(
        expect.arrayContaining(['NATS_URL', 'DATABASE_URL', 'PORT', 'LOG_LEVEL']),
      );
    }
  });

  it('runs NATS 2.10 with the repository nats.conf on a JetStream volume', () => {
    const nats = compose.services['nats']!;
    expect(nats['image']).toMatch(/^nats:2\.10(\.\d+)?-alpine/);
    const volumes = (nats['volumes'] as string[]).join('\n');
    expect(volumes).toContain('./infra/nats/nats.conf:');
    expect(volumes).toMatch(/nats-data:\/data/);
    expect((nats['command'] as string[]).join(' ')).toContain('--config');
    expect(JSON.stringify(nats['healthcheck'])).toContain('8222/healthz');
  });

  it('runs PostgreSQL 15 on a volume with a healthcheck', () => {
    const postgres = compose.services['postgres']!;
    expect(postgres['image']).toMatch(/^postgres:15/);
    expect((postgres['volumes'] as string[]).join('\n')).toContain(':/var/lib/postgresql/data');
    expect(JSON.stringify(postgres['healthcheck'])).toContain('pg_isready');
  });

  it('offers the embedded all-in-one on port 3000 behind the embedded profile', () => {
    const caravel = compose.services['caravel']!;
    expect(caravel['profiles']).toEqual(['embedded']);
    expect(caravel['build']).toMatchObject({ target: 'caravel' });
    expect(caravel['ports']).toEqual(['127.0.0.1:3000:3000']);
    expect(caravel['depends_on']).toBeUndefined();
    const embedded = { name: 'caravel', schema: embeddedEnvSchema };
    expect(envProblems('docker-compose.yml', embedded, composeEnv(caravel['environment']))).toEqual(
      [],
    );
    expect(healthcheckProblems('caravel', caravel)).toEqual([]);
  });

  describe('catches a broken copy', () => {
    const broken = (edit: (copy: Compose) => void): string[] => {
      const copy = loadCompose();
      edit(copy);
      return composeProblems(copy, SERVICES);
    };
    const envOf = (copy: Compose, name: string): Record<string, unknown> =>
      copy.services[name]!['environment'] as Record<string, unknown>;

    it('with a service missing', () => {
      expect(broken((c) => delete c.services['reviewer'])).toContain(
        'reviewer: missing from docker-compose.yml',
      );
    });

    it('with a misspelled env key', () => {
      const problems = broken((c) => {
        const env = envOf(c, 'dispatch');
        env['NATS_URI'] = env['NATS_URL'];
        delete env['NATS_URL'];
      });
      expect(problems).toEqual(
        expect.arrayContaining([
          'docker-compose.yml: dispatch does not set required NATS_URL',
          'docker-compose.yml: dispatch sets NATS_URI, which its config schema does not have',
        ]),
      );
    });

    it('with a required key missing or invalid', () => {
      expect(broken((c) => delete envOf(c, 'analyzer')['DATABASE_URL'])).toContain(
        'docker-compose.yml: analyzer does not set required DATABASE_URL',
      );
      expect(broken((c) => (envOf(c, 'analyzer')['LOG_LEVEL'] = 'loud')).join('\n')).toMatch(
        /analyzer LOG_LEVEL/,
      );
    });

    it('with a wrong port mapping, healthcheck or dependency', () => {
      const problems = broken((c) => {
        c.services['dashboard']!['ports'] = ['3007:3007'];
        c.services['ingress']!['healthcheck'] = { test: ['CMD', 'true'] };
        delete c.services['sandbox-broker']!['depends_on'];
      });
      expect(problems).toEqual(
        expect.arrayContaining([
          'dashboard: port 3007 is not published as 127.0.0.1:3007:3007',
          'ingress: healthcheck does not probe /health/live',
          'sandbox-broker: does not wait for a healthy nats',
        ]),
      );
    });
  });
});
