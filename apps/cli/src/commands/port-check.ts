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
