import { shellQuote } from '../session/request-encoder.js';
import type { BundleShell } from './bundle-install.js';

/** Bytes per read: their base64 stays well under a session's output limit (100 kB by default). */
const CHUNK_BYTES = 48_000;
const MAX_BYTES = 64 * 1024 * 1024;

/**
 * Reads a file anywhere in the sandbox (e.g. SWE-agent's `/root/model.patch`, outside the
 * workdir the file operations serve) through its session, in base64 chunks so the bytes arrive
 * unchanged whatever its size: the sandbox's own `tail`/`head`/`base64`, nothing on the host.
 * Null when the file is missing, over 64 MiB, or a read fails.
 */
export async function readSandboxFile(shell: BundleShell, path: string): Promise<Buffer | null> {
  const file = shellQuote(path);
  const size = await shell.exec(`stat -c %s -- ${file}`, { timeoutMs: 30_000 });
  const total = Number(size.output.trim());
  if (size.exitCode !== 0 || !Number.isSafeInteger(total) || total > MAX_BYTES) return null;
  const parts: Buffer[] = [];
  for (let offset = 0; offset < total; offset += CHUNK_BYTES) {
    const read = await shell.exec(
      `tail -c +${offset + 1} -- ${file} | head -c ${CHUNK_BYTES} | base64 -w0`,
      { timeoutMs: 60_000 },
    );
    if (read.exitCode !== 0 || read.truncated || read.timedOut) return null;
    parts.push(Buffer.from(read.output.trim(), 'base64'));
  }
  const bytes = Buffer.concat(parts);
  return bytes.length === total ? bytes : null;
}
