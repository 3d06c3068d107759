import { SERVICES } from '@caravel/cli';
import { testEnvironment } from '@caravel/testing';
import { helmForChecks, runHelm } from './helm-binary.js';
import {
  at,
  CHART,
  find,
  ofKind,
  RELEASE,
  renderChart,
  schemaProblems,
  selects,
  type Manifest,
} from './helm-render.js';

// The chart rendered by a real (pinned) helm for the default, a minimal and a production-like
// values file (infra/helm/caravel/ci), every manifest validated against the Kubernetes schema of
// its kind, and the rendered objects checked for what docs/deployment.md promises.

const VALUES = {
  default: `${CHART}/ci/default-values.yaml`,
  minimal: `${CHART}/ci/minimal-values.yaml`,
  production: `${CHART}/ci/production-values.yaml`,
  kubernetes: `${CHART}/ci/kubernetes-values.yaml`,
};
const name = (component: string): string => `${RELEASE}-caravel-${component}`;

const helm = helmForChecks(testEnvironment.CI);
const describeWithHelm = helm ? describe : describe.skip;
const helmPath = helm ?? '';

type Container = Record<string, unknown> & { name: string };
const podSpec = (m: Manifest): Record<string, unknown> =>
  at(m, 'spec.template.spec') as Record<string, unknown>;
const containerOf = (m: Manifest): Container => (podSpec(m)['containers'] as Container[])[0]!;

describeWithHelm('Helm chart, rendered', () => {
  const rendered = Object.fromEntries(
    Object.entries(VALUES).map(([key, file]) => [key, renderChart(helmPath, file)]),
  ) as Record<keyof typeof VALUES, Manifest[]>;
  const manifests = rendered.default;

  it.each(Object.entries(VALUES))('lints strictly with the %s values', (_key, file) => {
    const result = runHelm(helmPath, ['lint', '--strict', CHART, '-f', file]);
    expect({ status: result.status, errors: result.stdout.match(/\[ERROR\].*/g) ?? [] }).toEqual({
      status: 0,
      errors: [],
    });
  });

  it.each(Object.keys(VALUES))(
    'renders %s manifests that the Kubernetes schemas accept',
    async (key) => {
      const all = rendered[key as keyof typeof VALUES];
      expect(all.length).toBeGreaterThan(10);
      const problems: string[] = [];
      for (const manifest of all) problems.push(...(await schemaProblems(manifest)));
      expect(problems).toEqual([]);
    },
  );

  it('renders valid policies when no helm test pod may reach the services', async () => {
    const untested = renderChart(helmPath, VALUES.default, ['tests.enabled=false']);
    const policy = find(untested, 'NetworkPolicy', name('dispatch'));
    expect(at(policy, 'spec.ingress')).toEqual([]);
    expect(ofKind(untested, 'Pod')).toEqual([]);
    expect(await schemaProblems(policy)).toEqual([]);
  });

  it('catches a manifest the Kubernetes schema refuses', async () => {
    const deployment = structuredClone(find(manifests, 'Deployment', name('dispatch')));
    const container = containerOf(deployment);
    container['ports'] = [{ name: 'http', containerPort: '3002' }];
    expect(await schemaProblems(deployment)).toEqual([
      expect.stringContaining('containerPort must be integer'),
    ]);
  });

  it('refuses values the schema does not allow, naming them', () => {
    const broken = runHelm(helmPath, [
      'template',
      RELEASE,
      CHART,
      '-f',
      VALUES.default,
      '--set',
      'logLevl=debug,shutdownGraceMs=soon,services[0].name=ingres',
    ]);
    expect(broken.status).not.toBe(0);
    expect(broken.stderr).toContain("additional properties 'logLevl' not allowed");
    expect(broken.stderr).toMatch(/shutdownGraceMs'?: got string, want integer/);
    const noDatabase = runHelm(helmPath, ['template', RELEASE, CHART]);
    expect(noDatabase.stderr).toContain('set database.existingSecret or database.url');
  });

  it('runs every service non-root, read-only, tokenless, probed on its health endpoints', () => {
    for (const { name: service } of SERVICES) {
      const deployment = find(manifests, 'Deployment', name(service));
      const pod = podSpec(deployment);
      const container = containerOf(deployment);
      expect({
        service,
        sa: pod['serviceAccountName'],
        token: pod['automountServiceAccountToken'],
      }).toEqual({ service, sa: `${RELEASE}-caravel`, token: false });
      expect(at(container, 'startupProbe.httpGet.path')).toBe('/health/live');
      expect(at(container, 'livenessProbe.httpGet.path')).toBe('/health/live');
      expect(at(container, 'readinessProbe.httpGet.path')).toBe('/health/ready');
      expect(container['securityContext']).toMatchObject({
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        runAsNonRoot: true,
      });
    }
    expect(find(manifests, 'ServiceAccount', `${RELEASE}-caravel`)).toMatchObject({
      automountServiceAccountToken: false,
    });
    expect([...ofKind(manifests, 'Role'), ...ofKind(manifests, 'ClusterRole')]).toEqual([]);
  });

  it('tunes probes per service: the agent-runner gets a longer startup window', () => {
    const runner = containerOf(find(manifests, 'Deployment', name('agent-runner')));
    const dispatch = containerOf(find(manifests, 'Deployment', name('dispatch')));
    expect(at(runner, 'startupProbe.failureThreshold')).toBe(60);
    expect(at(dispatch, 'startupProbe.failureThreshold')).toBe(36);
    expect(at(runner, 'startupProbe.periodSeconds')).toBe(5);
  });

  it('scales the ingress and the agent-runner by CPU, leaving their replicas to the HPA', () => {
    const hpas = ofKind(manifests, 'HorizontalPodAutoscaler');
    expect(hpas.map((h) => at(h, 'spec.scaleTargetRef.name')).sort()).toEqual([
      name('agent-runner'),
      name('ingress'),
    ]);
    for (const hpa of hpas) {
      const target = find(manifests, 'Deployment', String(at(hpa, 'spec.scaleTargetRef.name')));
      expect(at(target, 'spec.replicas')).toBeUndefined();
    }
  });

  it('budgets disruptions for every service that runs more than one pod', () => {
    const budgets = ofKind(manifests, 'PodDisruptionBudget');
    expect(budgets.map((b) => b.metadata.name).sort()).toEqual(
      ['agent-runner', 'dispatch', 'ingress'].map(name),
    );
    for (const budget of budgets) {
      const deployment = find(manifests, 'Deployment', budget.metadata.name);
      expect(
        selects(
          at(budget, 'spec.selector.matchLabels'),
          at(deployment, 'spec.template.metadata.labels'),
        ),
      ).toBe(true);
    }
  });

  it('lets traffic in only to the ingress (anyone) and the dashboard (named peers)', () => {
    const policies = ofKind(manifests, 'NetworkPolicy');
    const deny = find(manifests, 'NetworkPolicy', `${RELEASE}-caravel-default-deny`);
    expect(at(deny, 'spec.policyTypes')).toEqual(['Ingress', 'Egress']);
    const openTo = (policy: Manifest): unknown[] =>
      ((at(policy, 'spec.ingress') as Record<string, unknown>[] | undefined) ?? []).filter(
        (rule) => !JSON.stringify(rule['from'] ?? null).includes('"caravel.dev/role":"test"'),
      );
    const reachable = policies.filter((p) => openTo(p).length > 0).map((p) => p.metadata.name);
    expect(reachable.sort()).toEqual([name('dashboard'), name('ingress')]);
    const dashboardRule = openTo(find(manifests, 'NetworkPolicy', name('dashboard')))[0];
    expect(at(dashboardRule, 'from')).toEqual([{ podSelector: {} }]);
    const prodDashboard = openTo(find(rendered.production, 'NetworkPolicy', name('dashboard')))[0];
    expect(JSON.stringify(at(prodDashboard, 'from'))).toContain('ingress-nginx');
  });

  it('lets the services out only to DNS, NATS, PostgreSQL and HTTPS beyond private ranges', () => {
    const egressPorts = (service: string): unknown[] =>
      (
        at(find(manifests, 'NetworkPolicy', name(service)), 'spec.egress') as Record<
          string,
          unknown
        >[]
      )
        .flatMap((rule) => (rule['ports'] as Record<string, unknown>[]).map((p) => p['port']))
        .sort();
    expect(egressPorts('dispatch')).toEqual([4222, 443, 53, 53, 5432].sort());
    expect(egressPorts('sandbox-broker')).toEqual([4222, 443, 53, 53, 5432, 80].sort());
    const https = (
      at(find(manifests, 'NetworkPolicy', name('dispatch')), 'spec.egress') as unknown[]
    ).find((rule) => JSON.stringify(rule).includes('ipBlock'));
    expect(at(https, 'to')).toEqual([
      { ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'] } },
    ]);
  });

  it('gives the broker its sandboxes volume, SANDBOX_ROOT on it, in its own user namespace', () => {
    const broker = find(manifests, 'Deployment', name('sandbox-broker'));
    const container = containerOf(broker);
    const mount = (container['volumeMounts'] as { name: string; mountPath: string }[]).find(
      (m) => m.name === 'sandboxes',
    );
    const root = (container['env'] as { name: string; value?: string }[]).find(
      (e) => e.name === 'SANDBOX_ROOT',
    );
    expect(root?.value?.startsWith(`${mount?.mountPath}/`)).toBe(true);
    expect(podSpec(broker)['hostUsers']).toBe(false);
    expect(at(container, 'securityContext.procMount')).toBe('Unmasked');
    expect(JSON.stringify(podSpec(broker)['volumes'])).toContain('"emptyDir":{"sizeLimit":"20Gi"}');
    const production = find(rendered.production, 'Deployment', name('sandbox-broker'));
    expect(JSON.stringify(podSpec(production)['volumes'])).toContain(
      `"persistentVolumeClaim":{"claimName":"${name('sandboxes')}"}`,
    );
    expect(find(rendered.production, 'PersistentVolumeClaim', name('sandboxes'))).toBeDefined();
  });

  it('points every Service at the pods of its own Deployment only', () => {
    for (const service of ofKind(manifests, 'Service')) {
      const matching = ofKind(manifests, 'Deployment').filter((d) =>
        selects(at(service, 'spec.selector'), at(d, 'spec.template.metadata.labels')),
      );
      expect({
        service: service.metadata.name,
        matching: matching.map((d) => d.metadata.name),
      }).toEqual({ service: service.metadata.name, matching: [service.metadata.name] });
    }
  });

  it('runs bundled NATS and PostgreSQL when asked, and points the services at them', () => {
    const minimal = rendered.minimal;
    expect(
      ofKind(minimal, 'StatefulSet')
        .map((s) => s.metadata.name)
        .sort(),
    ).toEqual([name('nats'), name('postgresql')]);
    expect(at(find(minimal, 'ConfigMap', name('common')), 'data.NATS_URL')).toBe(
      `nats://${name('nats')}:4222`,
    );
    expect(JSON.stringify(find(minimal, 'ConfigMap', name('nats')))).toContain(
      'sync_interval: always',
    );
    expect(at(find(minimal, 'Secret', name('database')), 'stringData.DATABASE_URL')).toBe(
      `postgres://caravel:evaluation-only@${name('postgresql')}:5432/caravel`,
    );
    expect(ofKind(minimal, 'Deployment').map((d) => d.metadata.name)).not.toContain(
      name('reviewer'),
    );
    expect(ofKind(rendered.default, 'StatefulSet')).toEqual([]);
  });

  it('takes secrets from existing Secrets and ships a helm test of every service', () => {
    const production = rendered.production;
    expect(ofKind(production, 'Secret')).toEqual([]);
    const env = JSON.stringify(
      containerOf(find(production, 'Deployment', name('agent-runner')))['env'],
    );
    expect(env).toContain('"secretKeyRef":{"name":"caravel-database","key":"DATABASE_URL"}');
    expect(env).toContain('"name":"caravel-secrets","key":"ANTHROPIC_API_KEY"');
    const test = find(manifests, 'Pod', name('test-ready'));
    expect(at(test, 'metadata.annotations')).toMatchObject({ 'helm.sh/hook': 'test' });
    const urls = (
      containerOf({ ...test, spec: { template: { spec: test['spec'] } } })['args'] as string[]
    ).slice(1);
    expect(urls.map((url) => /^http:\/\/([^:]+):\d+\/health\/ready$/.exec(url)?.[1])).toEqual(
      SERVICES.map((s) => name(s.name)),
    );
  });
});
