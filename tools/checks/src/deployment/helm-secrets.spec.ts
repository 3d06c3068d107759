import { SERVICES } from '@caravel/cli';
import { metaOf } from '@caravel/config';
import { testEnvironment } from '@caravel/testing';
import type { z } from 'zod';
import { schemaKeys } from './deployment-checks.js';
import { helmForChecks, runHelm } from './helm-binary.js';
import { at, CHART, find, ofKind, RELEASE, renderChart, schemaProblems } from './helm-render.js';

// Least privilege for secrets: with `secrets.existingSecret` (ci/production-values.yaml) each pod
// gets a secretKeyRef for exactly the secret keys its own config schema reads, so an exploit in
// one service finds only that service's credentials. The deprecated `envFromSecrets` still gives
// every key to every service.

const PRODUCTION = `${CHART}/ci/production-values.yaml`;
const DEFAULT = `${CHART}/ci/default-values.yaml`;
const SECRET = 'caravel-secrets';
const name = (component: string): string => `${RELEASE}-caravel-${component}`;
const helm = helmForChecks(testEnvironment.CI);
const describeWithHelm = helm ? describe : describe.skip;
const helmPath = helm ?? '';

const MODEL_KEYS = ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'OPENAI_COMPATIBLE_API_KEY'];
const DASHBOARD_KEYS = ['DASHBOARD_SESSION_KEYS', 'DASHBOARD_TOKEN', 'GITHUB_OAUTH_CLIENT_SECRET'];
const WEBHOOK_KEYS = [
  'GITHUB_WEBHOOK_SECRET',
  'SLACK_SIGNING_SECRET',
  'LINEAR_WEBHOOK_SECRET',
  'JIRA_SHARED_SECRET',
  'JIRA_HMAC_SECRET',
].flatMap((key) => [key, `${key}_PREVIOUS`]);

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
}
type Container = { env: EnvVar[]; envFrom?: Record<string, unknown>[] };

const containerOf = (manifests: Parameters<typeof find>[0], service: string): Container =>
  (
    at(find(manifests, 'Deployment', name(service)), 'spec.template.spec.containers') as Container[]
  )[0]!;

/** The env names a container takes from the install's Secret, each checked to be key = name. */
function fromSecret(container: Container): string[] {
  const refs = container.env.filter((e) => e.valueFrom?.secretKeyRef?.name === SECRET);
  for (const ref of refs)
    expect(ref.valueFrom?.secretKeyRef).toEqual({ name: SECRET, key: ref.name, optional: true });
  return refs.map((e) => e.name);
}

/** What a schema reads as a secret, DATABASE_URL apart (it has its own Secret). */
const secretKeysOfSchema = (schema: z.ZodObject): string[] =>
  Object.entries(schema.shape)
    .filter(([key, value]) => metaOf(value as z.ZodType)?.secret && key !== 'DATABASE_URL')
    .map(([key]) => key);

describeWithHelm('Helm chart secrets, per service', () => {
  const manifests = renderChart(helmPath, PRODUCTION);

  it('gives the ingress its webhook secrets and no GitHub App key, model key or dashboard secret', () => {
    // Whoever exploits the internet-facing webhook parser must not get the App's write access:
    // dispatch decides who may have Caravel act (membership gate, repository access) as the App,
    // and answers refusals, so no chat bot token either. Nor the token keyring, which opens people's stored GitHub tokens: Connect
    // installs' shared secrets are sealed with a keyring of the ingress's own.
    const ingress = fromSecret(containerOf(manifests, 'ingress'));
    expect(ingress).toEqual(expect.arrayContaining(WEBHOOK_KEYS));
    expect(ingress.filter((key) => [...MODEL_KEYS, ...DASHBOARD_KEYS].includes(key))).toEqual([]);
    expect(ingress).not.toContain('GITHUB_APP_PRIVATE_KEY');
    expect(ingress).not.toContain('TAVILY_API_KEY');
    expect(ingress).not.toContain('GITHUB_TOKEN');
    expect(ingress).not.toContain('SLACK_BOT_TOKEN');
    expect(ingress).not.toContain('LINEAR_API_KEY');
    expect(ingress).not.toContain('CARAVEL_TOKEN_KEYS');
    expect(ingress).toContain('CONNECT_SECRET_KEYS');
  });

  it('gives the broker the GitHub App key alone, and the dashboard its own keys', () => {
    expect(fromSecret(containerOf(manifests, 'sandbox-broker'))).toEqual([
      'GITHUB_APP_PRIVATE_KEY',
    ]);
    const dashboard = fromSecret(containerOf(manifests, 'dashboard'));
    expect(dashboard).toEqual(expect.arrayContaining(DASHBOARD_KEYS));
    expect(dashboard.filter((key) => [...MODEL_KEYS, ...WEBHOOK_KEYS].includes(key))).toEqual([]);
    const runner = fromSecret(containerOf(manifests, 'agent-runner'));
    expect(runner).toEqual(expect.arrayContaining([...MODEL_KEYS, 'CARAVEL_TOKEN_KEYS']));
    expect(runner).not.toContain('CONNECT_SECRET_KEYS');
    expect(runner.filter((key) => [...WEBHOOK_KEYS, ...DASHBOARD_KEYS].includes(key))).toEqual([]);
  });

  it('gives each service exactly the secret keys its schema reads, and no Secret whole', () => {
    for (const { name: service, schema } of SERVICES) {
      const container = containerOf(manifests, service);
      const keys = fromSecret(container);
      expect({ service, keys }).toEqual({ service, keys: secretKeysOfSchema(schema) });
      const unread = container.env
        .map((e) => e.name)
        .filter((k) => !schemaKeys(schema).includes(k));
      expect({ service, unread }).toEqual({ service, unread: [] });
      expect({ service, envFrom: container.envFrom }).toEqual({
        service,
        envFrom: [{ configMapRef: { name: name('common') } }],
      });
    }
  });

  it('renders deployments the Kubernetes schemas accept, with the Secret left to the operator', async () => {
    expect(ofKind(manifests, 'Secret')).toEqual([]);
    const problems: string[] = [];
    for (const deployment of ofKind(manifests, 'Deployment'))
      problems.push(...(await schemaProblems(deployment)));
    expect(problems).toEqual([]);
  });

  it('refuses a secret key given in plain values as well', () => {
    const result = runHelm(helmPath, [
      ...['template', RELEASE, CHART, '-f', PRODUCTION],
      ...['--set', 'commonEnv.SLACK_BOT_TOKEN=xoxb-plain'],
    ]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(
      'SLACK_BOT_TOKEN is a secret: keep it in secrets.existingSecret',
    );
  });

  it('still gives every key of an envFromSecrets Secret to every service (deprecated)', () => {
    const legacy = renderChart(helmPath, DEFAULT, ['envFromSecrets={caravel-integrations}']);
    for (const { name: service } of SERVICES) {
      const container = containerOf(legacy, service);
      expect(container.envFrom).toContainEqual({ secretRef: { name: 'caravel-integrations' } });
      expect(container.env.filter((e) => e.valueFrom?.secretKeyRef?.name === SECRET)).toEqual([]);
    }
  });
});
