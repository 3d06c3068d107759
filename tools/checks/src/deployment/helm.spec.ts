import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { SERVICES } from '@caravel/cli';
import {
  defaultPort,
  envProblems,
  isRecord,
  readRepoFile,
  REPO_ROOT,
  requiredKeys,
  schemaKeys,
  type ServiceSpec,
} from './deployment-checks.js';
import {
  definedTemplates,
  missingValuePaths,
  skeletonProblems,
  structureProblems,
  usedTemplates,
} from './go-template-lint.js';

const CHART = 'infra/helm/caravel';

interface ServiceValues {
  name: string;
  enabled: boolean;
  port: number;
  replicas: number;
  env: Record<string, unknown>;
  resources?: unknown;
}

type Values = Record<string, unknown> & {
  services: ServiceValues[];
  commonEnv: Record<string, unknown>;
};

const templateNames = readdirSync(join(REPO_ROOT, CHART, 'templates'), { recursive: true })
  .map(String)
  .filter((name) => /\.(yaml|tpl|txt)$/.test(name))
  .sort();
const templates = new Map(
  templateNames.map((name) => [name, readRepoFile(`${CHART}/templates/${name}`)]),
);
const template = (name: string): string => templates.get(name) ?? '';

function loadValues(): Values {
  return parse(readRepoFile(`${CHART}/values.yaml`)) as Values;
}

/** Env names a template sets literally: `- name: KEY` entries and ConfigMap `data` keys. */
function literalEnvKeys(text: string): string[] {
  const envEntries = [...text.matchAll(/^\s*- name: ([A-Z][A-Z0-9_]*)\s*$/gm)].map((m) => m[1]!);
  const dataBlock = /^data:\n((?:[ \t]+.*\n?)*)/m.exec(text)?.[1] ?? '';
  const dataKeys = [...dataBlock.matchAll(/^ {2}([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]!);
  return [...envEntries, ...dataKeys];
}

/** The env a service gets from the chart, with a placeholder for values that come from templates. */
function chartEnv(values: Values, service: ServiceValues): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of literalEnvKeys(template('configmap.yaml')).concat(
    literalEnvKeys(template('deployment.yaml')),
  )) {
    env[key] = '';
  }
  Object.assign(env, {
    NATS_URL: String((values['nats'] as Record<string, unknown>)['url']),
    DATABASE_URL: 'postgres://caravel@postgres.example:5432/caravel',
    // Set to false with the migrate Job (database.migrations), absent otherwise.
    DATABASE_MIGRATE: 'false',
    LOG_LEVEL: String(values['logLevel']),
    SHUTDOWN_GRACE_MS: String(values['shutdownGraceMs']),
    PORT: String(service.port),
  });
  for (const [key, value] of Object.entries({ ...values.commonEnv, ...service.env }))
    env[key] = String(value);
  return env;
}

function valuesProblems(values: Values, services: readonly ServiceSpec[]): string[] {
  const problems: string[] = [];
  const listed = new Set(values.services.map((s) => s.name));
  for (const name of listed)
    if (!services.some((s) => s.name === name)) problems.push(`${name}: not a Caravel service`);
  for (const spec of services) {
    const entry = values.services.find((s) => s.name === spec.name);
    if (!entry) {
      problems.push(`${spec.name}: missing from values.yaml services`);
      continue;
    }
    if (entry.port !== defaultPort(spec.schema))
      problems.push(`${spec.name}: port ${entry.port}, not ${defaultPort(spec.schema)}`);
    if (entry.enabled !== true) problems.push(`${spec.name}: not enabled by default`);
    if (!Number.isInteger(entry.replicas) || entry.replicas < 1)
      problems.push(`${spec.name}: replicas must be >= 1`);
    if (!isRecord(entry.resources)) problems.push(`${spec.name}: no resources`);
    problems.push(...envProblems('helm', spec, chartEnv(values, entry)));
  }
  return problems;
}

describe('Helm chart infra/helm/caravel', () => {
  const values = loadValues();

  it('has a Chart.yaml for Helm 3 with a version and an appVersion', () => {
    const chart = parse(readRepoFile(`${CHART}/Chart.yaml`)) as Record<string, unknown>;
    expect(chart).toMatchObject({ apiVersion: 'v2', name: 'caravel', type: 'application' });
    expect(chart['version']).toMatch(/^\d+\.\d+\.\d+/);
    expect(typeof chart['appVersion']).toBe('string');
  });

  it('lists every service with its port, replicas and resources, and a schema-valid env', () => {
    expect(valuesProblems(values, SERVICES)).toEqual([]);
  });

  it('only sets env keys that every service schema has, and covers every required key', () => {
    const keys = [
      ...literalEnvKeys(template('configmap.yaml')),
      ...literalEnvKeys(template('deployment.yaml')),
      ...Object.keys(values.commonEnv),
    ];
    expect(keys).toEqual(
      expect.arrayContaining([
        'NATS_URL',
        'DATABASE_URL',
        'PORT',
        'LOG_LEVEL',
        'SHUTDOWN_GRACE_MS',
      ]),
    );
    for (const { name, schema } of SERVICES) {
      expect({ name, stray: keys.filter((k) => !schemaKeys(schema).includes(k)) }).toEqual({
        name,
        stray: [],
      });
      expect({ name, missing: requiredKeys(schema).filter((k) => !keys.includes(k)) }).toEqual({
        name,
        missing: [],
      });
    }
  });

  it('has templates whose actions nest, whose includes exist and whose .Values paths exist', () => {
    const defined = new Set([...templates.values()].flatMap(definedTemplates));
    const problems = [...templates].flatMap(([name, text]) => [
      ...structureProblems(name, text),
      ...missingValuePaths(name, text, values),
      ...usedTemplates(text)
        .filter((used) => !defined.has(used))
        .map((used) => `${name}: includes undefined template "${used}"`),
    ]);
    expect(problems).toEqual([]);
  });

  it('has manifests that are YAML once the actions are filled in', () => {
    const manifests = templateNames.filter((name) => name.endsWith('.yaml'));
    expect(manifests).toEqual(
      expect.arrayContaining(['configmap.yaml', 'deployment.yaml', 'secret.yaml', 'service.yaml']),
    );
    expect(manifests.flatMap((name) => skeletonProblems(name, template(name)))).toEqual([]);
  });

  it('ranges one Deployment and one Service per enabled service', () => {
    for (const name of ['deployment.yaml', 'service.yaml']) {
      expect(template(name)).toMatch(
        /^\{\{- range \$svc := \.Values\.services \}\}\n\{\{- if \$svc\.enabled \}\}/,
      );
    }
    expect(template('deployment.yaml')).toContain('kind: Deployment');
    expect(template('service.yaml')).toContain('kind: Service');
  });

  it('probes readiness on /health/ready and liveness on /health/live', () => {
    const deployment = template('deployment.yaml');
    expect(deployment).toMatch(/readinessProbe:\n\s+httpGet:\n\s+path: \/health\/ready/);
    expect(deployment).toMatch(/livenessProbe:\n\s+httpGet:\n\s+path: \/health\/live/);
    expect(deployment).toMatch(/startupProbe:\n\s+httpGet:\n\s+path: \/health\/live/);
  });

  it('reads DATABASE_URL from a Secret and the common env from a ConfigMap', () => {
    const deployment = template('deployment.yaml');
    expect(deployment).toMatch(/- name: DATABASE_URL\n\s+valueFrom:\n\s+secretKeyRef:/);
    expect(deployment).toMatch(/envFrom:\n\s+- configMapRef:/);
    expect(template('configmap.yaml')).toContain('kind: ConfigMap');
    expect(template('secret.yaml')).toContain('kind: Secret');
  });

  it('gives pods longer to stop than SHUTDOWN_GRACE_MS', () => {
    expect(template('deployment.yaml')).toContain(
      'terminationGracePeriodSeconds: {{ include "caravel.terminationGracePeriodSeconds" $ }}',
    );
    const helper = template('_helpers.tpl');
    expect(helper).toContain('add1 (div (int .Values.shutdownGraceMs) 1000)');
    expect(Number(values['terminationExtraSeconds'])).toBeGreaterThanOrEqual(5);
    expect(Number(values['shutdownGraceMs'])).toBeGreaterThan(0);
  });

  it('runs pods as a non-root user without privilege escalation', () => {
    expect(values['podSecurityContext']).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    expect(values['containerSecurityContext']).toMatchObject({
      allowPrivilegeEscalation: false,
      runAsNonRoot: true,
    });
    expect(template('deployment.yaml')).toContain('toYaml $.Values.podSecurityContext');
  });

  it('says in NOTES.txt where NATS and PostgreSQL are and which webhook URLs to register', () => {
    const notes = template('NOTES.txt');
    expect(notes).toMatch(/NATS: bundled[\s\S]*NATS: external/);
    expect(notes).toMatch(/PostgreSQL: bundled[\s\S]*PostgreSQL: external/);
    for (const source of ['github', 'slack', 'linear', 'jira'])
      expect(notes).toContain(`https://<your host>/webhooks/${source}`);
  });

  describe('catches a broken copy', () => {
    it('with a service missing, a wrong port or a stray env key', () => {
      const copy = loadValues();
      copy.services = copy.services.filter((s) => s.name !== 'analyzer');
      copy.services.find((s) => s.name === 'ingress')!.port = 8080;
      copy.services.find((s) => s.name === 'reviewer')!.env = { DATABSE_URL: 'x' };
      expect(valuesProblems(copy, SERVICES)).toEqual(
        expect.arrayContaining([
          'analyzer: missing from values.yaml services',
          'ingress: port 8080, not 3001',
          'helm: reviewer sets DATABSE_URL, which its config schema does not have',
        ]),
      );
    });

    it('with an unclosed block, an undefined include, an unknown value or bad indentation', () => {
      const broken =
        '{{- range .Values.services }}\nname: {{ include "caravel.nope" . }}\n{{ .Values.nats.uri }}\n';
      expect(structureProblems('t.yaml', broken)).toEqual([
        't.yaml: range not closed by {{ end }}',
      ]);
      expect(usedTemplates(broken)).toEqual(['caravel.nope']);
      expect(missingValuePaths('t.yaml', broken, values)).toEqual([
        't.yaml: .Values.nats.uri is not in values.yaml',
      ]);
      expect(skeletonProblems('t.yaml', 'a:\n  b: {{ .x }}\n c: 1\n')).not.toEqual([]);
    });
  });
});
