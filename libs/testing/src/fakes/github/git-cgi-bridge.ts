import { spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Serves one git smart-HTTP request from `git http-backend` over bare repositories in `root`;
 * `env` adds to its environment (e.g. git config from `GIT_CONFIG_COUNT`).
 */
export function serveGitHttpBackend(
  incoming: IncomingMessage,
  response: ServerResponse,
  root: string,
  user: string,
  env: Readonly<Record<string, string>> = {},
): void {
  const url = new URL(incoming.url ?? '/', 'http://fake');
  const child = spawn('git', ['http-backend'], {
    env: {
      ...env,
      PATH: '/usr/bin:/bin',
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: incoming.method ?? 'GET',
      CONTENT_TYPE: incoming.headers['content-type'] ?? '',
      ...(incoming.headers['content-length']
        ? { CONTENT_LENGTH: incoming.headers['content-length'] }
        : {}),
      HTTP_CONTENT_ENCODING: incoming.headers['content-encoding'] ?? '',
      GIT_PROTOCOL: String(incoming.headers['git-protocol'] ?? ''),
      REMOTE_USER: user,
      REMOTE_ADDR: '127.0.0.1',
    },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  incoming.pipe(child.stdin);
  let pending = Buffer.alloc(0);
  let headersDone = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (headersDone) {
      response.write(chunk);
      return;
    }
    pending = Buffer.concat([pending, chunk]);
    const end = pending.indexOf('\r\n\r\n');
    if (end < 0) return;
    headersDone = true;
    writeCgiHeaders(response, pending.subarray(0, end).toString('latin1'));
    response.write(pending.subarray(end + 4));
  });
  child.on('close', () => {
    if (!headersDone) response.writeHead(502);
    response.end();
  });
}

function writeCgiHeaders(response: ServerResponse, block: string): void {
  let status = 200;
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
    else if (name) response.setHeader(name, value);
  }
  response.writeHead(status);
}
