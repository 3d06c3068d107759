import type { EnvSource } from '@caravel/config';
import { AppError } from '@caravel/errors';
import { createServer } from 'node:net';

/**
 * Fails at once, with what to do, when `port` cannot be listened on: in use (another Caravel?)
 * or not allowed. Checked before the long boot, so nobody waits for a server that cannot listen.
 */
export async function assertPortFree(
  host: string,
  port: number,
  choose = 'pass --port N (or set PORT)',
): Promise<void> {
  if (port === 0) return;
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => server.close(() => resolve()));
  }).catch((error: unknown) => {
    const code = (error as { code?: unknown }).code;
    const why =
      code === 'EADDRINUSE'
        ? 'is already in use (another Caravel?)'
        : code === 'EACCES'
          ? 'needs privileges this user lacks'
          : `cannot be listened on (${String(code ?? error)})`;
    throw new AppError(
      'CONFIG_INVALID',
      `port ${port} on ${host} ${why}: stop what holds it, or ${choose}`,
      { details: { host, port } },
    );
  });
}

/**
 * The port `caravel start` will listen on, checked before seconds of loading: `--port`, else
 * PORT (3000 by default). A PORT that is not a port is left to the configuration's own error.
 */
export async function assertStartPortFree(env: EnvSource, port: number | undefined): Promise<void> {
  const fromEnv = Number(env['PORT'] ?? 3000);
  const early = port ?? (Number.isInteger(fromEnv) ? fromEnv : undefined);
  if (early !== undefined && early >= 0 && early <= 65_535)
    await assertPortFree(env['HOST'] ?? '127.0.0.1', early);
}
