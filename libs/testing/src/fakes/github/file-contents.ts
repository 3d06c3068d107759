import { execFileSync } from 'node:child_process';
import { posix, join } from 'node:path';
import type { FakeResponse } from '../http/loopback-api.js';

/**
 * `GET /repos/{o}/{r}/contents/{path}?ref=` over `<root>/<fullName>.git`: a file's text at `ref`
 * (a branch or a sha; `defaultBranch` when absent), base64 as GitHub sends it, or GitHub's 404
 * when the ref does not hold a file there. A directory is answered as GitHub does, with its
 * entries (names and types only).
 */
export function fileContents(
  root: string,
  fullName: string,
  path: string,
  ref: string,
): FakeResponse {
  const git = (...args: string[]): Buffer | null => {
    try {
      return execFileSync('git', ['-c', 'safe.directory=*', ...args], {
        cwd: join(root, `${fullName}.git`),
        stdio: ['ignore', 'pipe', 'ignore'],
      });
    } catch {
      return null;
    }
  };
  const object = `${ref}:${path.replace(/^\/+/, '')}`;
  const type = git('cat-file', '-t', object)?.toString().trim();
  if (type === 'tree') {
    const entries = (git('ls-tree', object)?.toString() ?? '').split('\n').filter(Boolean);
    return {
      status: 200,
      body: entries.map((line) => {
        const [meta = '', name = ''] = line.split('\t');
        return {
          name,
          path: posix.join(path, name),
          type: meta.includes(' tree ') ? 'dir' : 'file',
        };
      }),
    };
  }
  const content = type === 'blob' ? git('cat-file', 'blob', object) : null;
  if (content === null) return { status: 404, body: { message: 'Not Found' } };
  return {
    status: 200,
    body: {
      type: 'file',
      encoding: 'base64',
      size: content.length,
      name: posix.basename(path),
      path,
      content: content.toString('base64'),
    },
  };
}
