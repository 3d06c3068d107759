import { describe, expect, it } from '@jest/globals';
import { ApiException } from '@kubernetes/client-node';
import { sandboxErrorReason } from '../../sandbox.errors.js';
import { kubernetesError, withDeadline } from './kubernetes-errors.js';
import { execExitCode } from './kubernetes-exec.js';

const statusBody = (code: number, reason: string, message: string) =>
  JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message });

describe('kubernetesError', () => {
  it('maps 403 to a refused configuration naming the verb and the Role to check', () => {
    const error = kubernetesError(
      'creating pod caravel-sbx-1',
      new ApiException(403, 'Forbidden', statusBody(403, 'Forbidden', 'pods is forbidden'), {}),
      'sbx-1',
    );
    expect(sandboxErrorReason(error)).toBe('provider_auth_failed');
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain(
      'kubernetes refused creating pod caravel-sbx-1 (HTTP 403): pods is forbidden',
    );
    expect(error.message).toContain('Role in the sandbox namespace');
    expect(error.details).toMatchObject({ id: 'sbx-1', status: 403, apiReason: 'Forbidden' });
  });

  it('maps 404 and 409 to a missing and an existing sandbox', () => {
    const missing = new ApiException(
      404,
      'Not Found',
      statusBody(404, 'NotFound', 'pods "x" not found'),
      {},
    );
    const taken = new ApiException(
      409,
      'Conflict',
      statusBody(409, 'AlreadyExists', 'pods "x" already exists'),
      {},
    );
    expect(sandboxErrorReason(kubernetesError('reading pod x', missing))).toBe('sandbox_not_found');
    const conflict = kubernetesError('creating pod x', taken);
    expect(sandboxErrorReason(conflict)).toBe('sandbox_exists');
    expect(conflict.message).toBe('kubernetes: creating pod x: pods "x" already exists');
  });

  it('maps a server error, a refused connection and a refused exec upgrade', () => {
    const server = kubernetesError(
      'listing pods',
      new ApiException(500, 'boom', 'etcd timeout', {}),
    );
    expect(sandboxErrorReason(server)).toBe('provider_unavailable');
    expect(server.message).toBe(
      'kubernetes API unavailable while listing pods: HTTP 500: etcd timeout',
    );
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), {
      code: 'ECONNREFUSED',
    });
    expect(kubernetesError('reading pod x', refused).message).toBe(
      'kubernetes API unavailable while reading pod x: ECONNREFUSED: connect ECONNREFUSED 10.0.0.1:443',
    );
    const upgrade = { message: 'Unexpected server response: 403' };
    expect(sandboxErrorReason(kubernetesError('starting a session', upgrade))).toBe(
      'provider_auth_failed',
    );
  });

  it('bounds a call that never answers', async () => {
    const never = new Promise<never>(() => undefined);
    const error = await withDeadline('reading pod x', 1_000, never).catch(
      (caught: unknown) => caught,
    );
    expect(sandboxErrorReason(error)).toBe('provider_unavailable');
    expect((error as Error).message).toBe(
      'kubernetes API unavailable while reading pod x: no answer within 1000 ms',
    );
  });
});

describe('execExitCode', () => {
  it('reads the exit code from the status of channel 3', () => {
    expect(execExitCode({ status: 'Success' })).toBe(0);
    expect(
      execExitCode({
        status: 'Failure',
        reason: 'NonZeroExitCode',
        details: { causes: [{ reason: 'ExitCode', message: '42' }] },
      }),
    ).toBe(42);
    expect(
      execExitCode({ status: 'Failure', reason: 'InternalError', message: 'no such file' }),
    ).toBeUndefined();
  });
});
