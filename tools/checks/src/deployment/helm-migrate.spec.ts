import { SERVICES } from '@caravel/cli';
import { testEnvironment } from '@caravel/testing';
import { helmForChecks, runHelm } from './helm-binary.js';
import { at, CHART, find, ofKind, RELEASE, renderChart, type Manifest } from './helm-render.js';

// Migrations as one step and a database role per service (docs/db.md "Migrating", "Roles"): with
// an external PostgreSQL named by an existing Secret, a pre-install/pre-upgrade Job runs
// `caravel db migrate` with the owner's URL and the services only check; a service given a URL
// of its own (database.services) gets that one and not the owner's.

const PRODUCTION = `${CHART}/ci/production-values.yaml`;
const VALUES = {
  default: `${CHART}/ci/default-values.yaml`,
  minimal: `${CHART}/ci/minimal-values.yaml`,
};
const OWNER_SECRET = 'caravel-database';
const INGRESS_SECRET = 'caravel-database-ingress';
const name = (component: string): string => `${RELEASE}-caravel-${component}`;
const helm = helmForChecks(testEnvironment.CI);
const describeWithHelm = helm ? describe : describe.skip;
const helmPath = helm ?? '';

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface Container {
  name: string;
  args?: string[];
  command?: string[];
  env: EnvVar[];
}

const podOf = (manifest: Manifest) =>
  at(manifest, 'spec.template.spec') as { containers: Container[]; initContainers?: Container[] };
const serviceContainer = (manifests: Manifest[], service: string): Container =>
  podOf(find(manifests, 'Deployment', name(service))).containers[0]!;
const envOf = (container: Container, key: string) => container.env.find((e) => e.name === key);

describeWithHelm('Helm chart: the migrate Job and per-service database URLs', () => {
  const production = renderChart(helmPath, PRODUCTION);
  const perService = renderChart(helmPath, PRODUCTION, [
    `database.services.ingress.existingSecret=${INGRESS_SECRET}`,
    'database.migrations.applyGrants=true',
  ]);

  it('migrates with the owner URL in a pre-install/pre-upgrade Job before the pods change', () => {
    const job = find(production, 'Job', name('migrate'));
    expect(at(job, 'metadata.annotations')).toMatchObject({
      'helm.sh/hook': 'pre-install,pre-upgrade',
      'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
    });
    const pod = podOf(job);
    expect(pod.initContainers).toBeUndefined();
    const [migrate] = pod.containers;
    expect([...(migrate?.command ?? []), ...(migrate?.args ?? [])]).toEqual([
      'node',
      'apps/cli/dist/main.js',
      'db',
      'migrate',
    ]);
    expect(envOf(migrate!, 'DATABASE_URL')?.valueFrom?.secretKeyRef).toEqual({
      name: OWNER_SECRET,
      key: 'DATABASE_URL',
    });
    expect(at(job, 'spec.template.spec.automountServiceAccountToken')).toBe(false);
    // Its own hook policy: DNS and PostgreSQL out, nothing in.
    const policy = find(production, 'NetworkPolicy', name('migrate'));
    expect(at(policy, 'metadata.annotations')).toMatchObject({
      'helm.sh/hook': 'pre-install,pre-upgrade',
    });
    expect(at(policy, 'spec.ingress')).toEqual([]);
    expect(JSON.stringify(at(policy, 'spec.egress'))).toMatch(/53.*5432/);
    expect(JSON.stringify(at(policy, 'spec.egress'))).not.toContain('443');
  });

  it('starts every service with DATABASE_MIGRATE=false, so none changes the schema', () => {
    for (const { name: service } of SERVICES)
      expect({
        service,
        migrate: envOf(serviceContainer(production, service), 'DATABASE_MIGRATE'),
      }).toEqual({ service, migrate: { name: 'DATABASE_MIGRATE', value: 'false' } });
  });

  it("gives the ingress its own URL and never the owner's, the others the shared one", () => {
    const ingress = serviceContainer(perService, 'ingress');
    expect(envOf(ingress, 'DATABASE_URL')?.valueFrom?.secretKeyRef).toEqual({
      name: INGRESS_SECRET,
      key: 'DATABASE_URL',
    });
    expect(JSON.stringify(ingress)).not.toContain(`"name":"${OWNER_SECRET}"`);
    expect(
      envOf(serviceContainer(perService, 'dispatch'), 'DATABASE_URL')?.valueFrom?.secretKeyRef,
    ).toEqual({ name: OWNER_SECRET, key: 'DATABASE_URL' });
  });

  it('applies the grants after migrating when asked', () => {
    const pod = podOf(find(perService, 'Job', name('migrate')));
    expect(pod.initContainers?.map((c) => [c.name, ...(c.args ?? [])])).toEqual([
      ['migrate', 'db', 'migrate'],
    ]);
    expect(pod.containers.map((c) => [c.name, ...(c.args ?? [])])).toEqual([
      ['grants', 'db', 'grants', '--apply'],
    ]);
  });

  it.each(Object.entries(VALUES))(
    'leaves migrations to the services with the %s values (the chart makes the Secret or PostgreSQL)',
    (_key, file) => {
      const manifests = renderChart(helmPath, file);
      expect(ofKind(manifests, 'Job')).toEqual([]);
      for (const deployment of ofKind(manifests, 'Deployment'))
        expect(envOf(podOf(deployment).containers[0]!, 'DATABASE_MIGRATE')).toBeUndefined();
    },
  );

  it('refuses a per-service URL without the Job, and DATABASE_MIGRATE set by hand', () => {
    const refused = (file: string, set: string) =>
      runHelm(helmPath, ['template', RELEASE, CHART, '-f', file, '--set', set]).stderr;
    expect(
      refused(VALUES.default, `database.services.ingress.existingSecret=${INGRESS_SECRET}`),
    ).toContain('database.services.ingress: a service on its own database role cannot migrate');
    expect(refused(VALUES.default, 'database.migrations.mode=job')).toContain(
      'database.migrations.mode job needs database.existingSecret',
    );
    expect(refused(PRODUCTION, 'commonEnv.DATABASE_MIGRATE=true')).toContain(
      'DATABASE_MIGRATE follows database.migrations.mode',
    );
  });
});
