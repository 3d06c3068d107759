import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVICES } from '@caravel/cli';
import {
  E2E_OVERRIDE,
  environmentAsMounted,
  loadE2eOverride,
  mergeCompose,
  parseCompose,
  variablesOf,
  type Compose,
} from './compose-e2e-merge.js';
import { composeEnv, envProblems, isRecord, readRepoFile } from './deployment-checks.js';

// The compose e2e (e2e/compose-to-draft-pr.e2e-spec.ts) needs a Docker engine; what it boots is
// checked here, everywhere: infra/docker/docker-compose.e2e.yml merged onto docker-compose.yml
// with the variables the e2e sets.

/** Where the e2e writes its scripted model: a file the runner's config must be able to read. */
const scriptDir = mkdtempSync(join(tmpdir(), 'caravel-compose-e2e-check-'));
afterAll(() => rmSync(scriptDir, { recursive: true, force: true }));

/** What the compose e2e sets (e2e/support/compose-platform.ts, `ComposeE2eVariables`). */
const VARIABLES = {
  CARAVEL_E2E_GITHUB_URL: 'http://host.docker.internal:40123',
  CARAVEL_E2E_GITHUB_APP_ID: '4242',
  CARAVEL_E2E_GITHUB_APP_PRIVATE_KEY: generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString()
    .replace(/\n/g, '\\n'),
  CARAVEL_E2E_WEBHOOK_SECRET: 'e2e-secret',
  CARAVEL_E2E_SCRIPT: join(scriptDir, 'compose.script.yaml'),
};
writeFileSync(
  VARIABLES.CARAVEL_E2E_SCRIPT,
  'responses:\n  - content: Done.\n    tool_calls:\n      - name: submit\n        args: {}\n',
);

/** The only ports the e2e reaches: webhooks in, and the run's status. */
const PUBLISHED: Record<string, string[]> = {
  ingress: ['127.0.0.1::3001'],
  dashboard: ['127.0.0.1::3007'],
};
const HOST_GATEWAY = 'host.docker.internal:host-gateway';
/**
 * Where each service the run crosses calls GitHub: the API (dispatch: reactions, replies and
 * the ingress's membership questions; the runner: the PR) and git (the runner's tools, the
 * broker's clone and egress proxy). The ingress calls no GitHub API: it holds no App.
 */
const FAKE_GITHUB: Record<string, string[]> = {
  dispatch: ['GITHUB_API_URL'],
  'agent-runner': ['GITHUB_API_URL', 'GITHUB_HOST'],
  'sandbox-broker': ['GITHUB_API_URL', 'GITHUB_HOST'],
};

const base = (): Compose => parseCompose(readRepoFile('docker-compose.yml'));
const merged = (override = loadE2eOverride(VARIABLES)): Compose => mergeCompose(base(), override);
const envOf = (compose: Compose, name: string) =>
  composeEnv(compose.services[name]?.['environment']);

/** Every problem of the merged file; empty when the e2e boots what it means to. */
function overrideProblems(override: Compose): string[] {
  const compose = merged(override);
  const names = new Set(Object.keys(base().services));
  const problems = Object.keys(override.services)
    .filter((name) => !names.has(name))
    .map((name) => `${name}: not a service of docker-compose.yml`);
  for (const spec of SERVICES) {
    const service = compose.services[spec.name] ?? {};
    const env = envOf(compose, spec.name);
    problems.push(...envProblems(E2E_OVERRIDE, spec, environmentAsMounted(service)));
    const keys = FAKE_GITHUB[spec.name] ?? [];
    for (const key of keys) {
      if (env[key] !== VARIABLES.CARAVEL_E2E_GITHUB_URL)
        problems.push(`${spec.name}: ${key} is ${env[key] ?? 'unset'}, not the fake GitHub`);
    }
    const hosts = (service['extra_hosts'] as unknown[] | undefined) ?? [];
    if (keys.length && !hosts.includes(HOST_GATEWAY))
      problems.push(`${spec.name}: has no ${HOST_GATEWAY}`);
  }
  for (const [name, service] of Object.entries(compose.services)) {
    if (service['profiles']) continue; // not started unless its profile is asked for
    const ports = ((service['ports'] as unknown[] | undefined) ?? []).map(String);
    if (JSON.stringify(ports) !== JSON.stringify(PUBLISHED[name] ?? []))
      problems.push(`${name}: publishes ${ports.join(', ') || 'nothing'}`);
  }
  return problems;
}

describe('infra/docker/docker-compose.e2e.yml on docker-compose.yml', () => {
  it('names only services of docker-compose.yml, with env their config schemas accept', () => {
    expect(overrideProblems(loadE2eOverride(VARIABLES))).toEqual([]);
  });

  it('requires every variable the e2e sets, and reads no other', () => {
    const variables = variablesOf(readRepoFile(E2E_OVERRIDE));
    expect(new Set(variables.map((v) => v.name))).toEqual(new Set(Object.keys(VARIABLES)));
    expect(variables.filter((v) => !v.required)).toEqual([]);
    const { CARAVEL_E2E_SCRIPT: _script, ...withoutScript } = VARIABLES;
    expect(() => loadE2eOverride(withoutScript)).toThrow(
      'required variable CARAVEL_E2E_SCRIPT is missing',
    );
  });

  it("runs the runner on the scripted model, its file mounted read-only where the model's path points", () => {
    const compose = merged();
    const model = envOf(compose, 'agent-runner')['CARAVEL_MODEL'] ?? '';
    expect(model).toMatch(/^scripted:\//);
    const volumes = (compose.services['agent-runner']?.['volumes'] as unknown[]).map(String);
    expect(volumes).toContain(
      `${VARIABLES.CARAVEL_E2E_SCRIPT}:${model.slice('scripted:'.length)}:ro`,
    );
  });

  it('points the webhook secret of ingress at the one the e2e signs with', () => {
    expect(envOf(merged(), 'ingress')['GITHUB_WEBHOOK_SECRET']).toBe(
      VARIABLES.CARAVEL_E2E_WEBHOOK_SECRET,
    );
  });

  it('keeps what docker-compose.yml gives each service (bus, database, sandbox volume)', () => {
    const compose = merged();
    for (const { name } of SERVICES) {
      expect(envOf(compose, name)).toMatchObject(envOf(base(), name));
    }
    expect(compose.services['sandbox-broker']?.['volumes']).toEqual(
      base().services['sandbox-broker']?.['volumes'],
    );
  });

  describe('catches a broken copy', () => {
    const broken = (edit: (copy: Compose) => void): string[] => {
      const copy = loadE2eOverride(VARIABLES);
      edit(copy);
      return overrideProblems(copy);
    };
    const service = (copy: Compose, name: string) => copy.services[name] ?? {};

    it('with a service docker-compose.yml does not have', () => {
      expect(broken((c) => (c.services['agent_runner'] = {}))).toContain(
        'agent_runner: not a service of docker-compose.yml',
      );
    });

    it('with an env key a service does not read, or a value it refuses', () => {
      const problems = broken((c) => {
        const env = service(c, 'dispatch')['environment'];
        if (isRecord(env)) env['CARAVEL_MODEL'] = 'scripted:/x.yaml';
        if (isRecord(env)) env['GITHUB_APP_ID'] = 'four';
      });
      expect(problems).toEqual(
        expect.arrayContaining([
          `${E2E_OVERRIDE}: dispatch sets CARAVEL_MODEL, which its config schema does not have`,
          `${E2E_OVERRIDE}: dispatch GITHUB_APP_ID: a numeric App id`,
        ]),
      );
    });

    it("with the scripted model's file mounted somewhere else than the model's path", () => {
      const problems = broken((c) => {
        service(c, 'agent-runner')['volumes'] = [
          `${VARIABLES.CARAVEL_E2E_SCRIPT}:/elsewhere.yaml:ro`,
        ];
      });
      expect(problems.join('\n')).toMatch(
        /agent-runner CARAVEL_MODEL: .*cannot read \/etc\/caravel\/e2e\.script\.yaml/,
      );
    });

    it('with a service left on the real GitHub, or unable to reach the fake', () => {
      const problems = broken((c) => {
        delete service(c, 'sandbox-broker')['environment'];
        delete service(c, 'dispatch')['extra_hosts'];
      });
      expect(problems).toEqual(
        expect.arrayContaining([
          'sandbox-broker: GITHUB_API_URL is unset, not the fake GitHub',
          'sandbox-broker: GITHUB_HOST is unset, not the fake GitHub',
          `dispatch: has no ${HOST_GATEWAY}`,
        ]),
      );
    });

    it('with a host port that could clash', () => {
      const problems = broken((c) => {
        delete service(c, 'nats')['ports'];
        delete service(c, 'ingress')['ports'];
      });
      expect(problems).toEqual(
        expect.arrayContaining([
          'nats: publishes 127.0.0.1:8222:8222',
          'ingress: publishes 3001:3001',
        ]),
      );
    });
  });
});
