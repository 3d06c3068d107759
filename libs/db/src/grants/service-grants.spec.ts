import { describe, expect, it } from '@jest/globals';
import { grantsScript, isGrantService, serviceGrantSql, serviceRole } from './service-grants.js';

describe('per-service grants', () => {
  it('names each role after its service', () => {
    expect(serviceRole('ingress')).toBe('caravel_ingress');
    expect(serviceRole('agent-runner')).toBe('caravel_agent_runner');
    expect(serviceRole('sandbox-broker')).toBe('caravel_sandbox_broker');
    expect(isGrantService('ingress')).toBe(true);
    expect(isGrantService('postgres')).toBe(false);
  });

  it('grants writes, reads and sequences of the given tables only, after revoking the rest', () => {
    const script = serviceGrantSql('ingress', { writes: ['deliveries'], reads: ['threads'] });
    expect(script).toContain(
      'GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE "deliveries" TO caravel_ingress;',
    );
    expect(script).toContain('GRANT SELECT ON TABLE "threads" TO caravel_ingress;');
    expect(script).toContain(`ARRAY['"deliveries"'::regclass]`);
    expect(script.indexOf('REVOKE ALL ON ALL TABLES')).toBeLessThan(script.indexOf('GRANT SELECT'));
    expect(script).toContain('REVOKE CREATE ON SCHEMA');
    expect(script).not.toMatch(/PASSWORD|TRUNCATE|CREATEDB|SUPERUSER/);
  });

  it("gives the ingress none of the people's tokens", () => {
    const script = serviceGrantSql('ingress');
    expect(script).not.toMatch(/personal_tokens|user_tokens|identities/);
  });

  it("gives the eval scheduler its evals' tables and none of the platform's runs or tokens", () => {
    const script = serviceGrantSql('evals');
    expect(serviceRole('evals')).toBe('caravel_evals');
    expect(script).toContain('"eval_schedules"');
    expect(script).not.toMatch(/"runs"|"threads"|personal_tokens|user_tokens|identities/);
  });

  it('is one transaction for the services asked', () => {
    const script = grantsScript(['ingress', 'dashboard']);
    expect(script.startsWith('BEGIN;\n')).toBe(true);
    expect(script.endsWith('COMMIT;\n')).toBe(true);
    expect(script).toContain('caravel_dashboard');
    expect(script).not.toContain('caravel_dispatch');
  });
});
