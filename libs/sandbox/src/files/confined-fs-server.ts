/**
 * The program that serves `WorkdirFs` primitives from inside a sandbox: node, given this source
 * with `--input-type=module -e`, reads one JSON request per line on stdin and answers one JSON
 * line each on stdout (`{ id, ok, value }` or `{ id, ok: false, code, message }`; bytes in
 * base64). It runs as the sandbox user in the sandbox's namespace, so whatever a path or a
 * symlink names, it can only reach what the sandbox itself sees. Self-contained on purpose: the
 * sandbox sees no module of the host's.
 */
export const CONFINED_FS_SERVER = String.raw`
import { lstat, mkdir, open, readdir, readlink, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

const kind = (e) =>
  e.isSymbolicLink() ? 'symlink' : e.isDirectory() ? 'directory' : e.isFile() ? 'file' : 'other';
const failure = (code, message) => Object.assign(new Error(message), { code });

async function lstatOrNull(path) {
  try {
    const info = await lstat(path);
    return { type: kind(info), size: info.size };
  } catch (error) {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null;
    throw error;
  }
}

async function readCapped(path, maxBytes) {
  const handle = await open(path, 'r');
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw failure('EISDIR', path + ' is not a regular file');
    if (info.size > maxBytes) throw failure('EFBIG', path + ' is ' + info.size + ' bytes');
    // The same reading as workdir-fs.ts's readCapped (read-capped.spec.ts holds both to it).
    let buffer = Buffer.alloc(Math.min(Math.max(info.size, 8191), maxBytes) + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > maxBytes) break;
        const grown = Buffer.alloc(Math.min(length * 2, maxBytes + 1));
        buffer.copy(grown);
        buffer = grown;
      }
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > maxBytes) throw failure('EFBIG', path + ' grew past ' + maxBytes + ' bytes');
    return buffer.subarray(0, length).toString('base64');
  } finally {
    await handle.close();
  }
}

const ops = {
  lstat: (r) => lstatOrNull(r.path),
  stat: async (r) => {
    const info = await stat(r.path);
    return { type: kind(info), size: info.size };
  },
  readlink: (r) => readlink(r.path),
  readdir: async (r) => {
    const entries = [];
    for (const d of await readdir(r.path, { withFileTypes: true })) {
      const info = await lstatOrNull(join(r.path, d.name));
      entries.push({ name: d.name, type: kind(d), size: info ? info.size : 0 });
    }
    return entries;
  },
  readFile: (r) => readCapped(r.path, r.maxBytes),
  writeFile: async (r) => {
    await mkdir(dirname(r.path), { recursive: true });
    const handle = await open(r.path, 'w');
    try {
      await handle.writeFile(Buffer.from(r.data, 'base64'));
    } finally {
      await handle.close();
    }
    return null;
  },
};

const send = (answer) => process.stdout.write(JSON.stringify(answer) + '\n');
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    continue;
  }
  const op = ops[request.op];
  Promise.resolve()
    .then(() => (op ? op(request) : Promise.reject(failure('EINVAL', 'unknown op'))))
    .then(
      (value) => send({ id: request.id, ok: true, value }),
      (error) => send({ id: request.id, ok: false, code: error.code || 'EIO', message: String(error.message) }),
    );
}
`;
