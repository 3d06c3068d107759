import { describe, expect, it } from '@jest/globals';
import { sandboxErrorReason } from '../../sandbox.errors.js';
import { dockerError, engineStatus } from './docker-errors.js';

/** The shape of dockerode's errors (docker-modem): statusCode and the engine's JSON message. */
const engineError = (statusCode: number, message: string) =>
  Object.assign(new Error(`(HTTP code ${statusCode}) ${message}`), {
    statusCode,
    json: { message },
  });

describe('dockerError', () => {
  it('maps a missing container to sandbox_not_found and a name clash to sandbox_exists', () => {
    const missing = dockerError('inspecting', engineError(404, 'No such container: x'), 'x');
    expect(sandboxErrorReason(missing)).toBe('sandbox_not_found');
    expect(missing.message).toBe('docker: inspecting: No such container: x');
    expect(missing.details).toMatchObject({ id: 'x', status: 404 });
    expect(sandboxErrorReason(dockerError('creating', engineError(409, 'Conflict')))).toBe(
      'sandbox_exists',
    );
  });

  it('reports a missing image or an absent engine as provider_unavailable, saying why', () => {
    const image = dockerError('creating', engineError(404, 'No such image: caravel/sandbox'));
    expect(sandboxErrorReason(image)).toBe('provider_unavailable');
    expect(image.message).toContain('No such image: caravel/sandbox');
    const socket = Object.assign(new Error('connect ENOENT /var/run/docker.sock'), {
      code: 'ENOENT',
    });
    const absent = dockerError('pinging', socket);
    expect(sandboxErrorReason(absent)).toBe('provider_unavailable');
    expect(absent.message).toBe(
      'docker engine unavailable while pinging: ENOENT (connect ENOENT /var/run/docker.sock)',
    );
    expect(engineStatus(socket)).toBeUndefined();
    expect(engineStatus(engineError(304, 'already started'))).toBe(304);
  });
});
