import { AppError } from '@caravel/errors';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, open, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { hostGit } from './host-git.js';

/** A bundle's first line, by version (v3 adds capabilities; both end the header with a blank line). */
const SIGNATURES = ['# v2 git bundle\n', '# v3 git bundle\n'];
const SIGNATURE_BYTES = 16;
/** The longest header read (refs and prerequisites, one line each) before the bundle is refused. */
const MAX_HEADER_BYTES = 16 * 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;

function refused(reason: string): AppError {
  return new AppError('PRECONDITION_FAILED', `the sandbox's commits were refused: ${reason}`, {
    details: { reason: 'sandbox_objects_refused' },
  });
}

/** Where the bundle's pack starts: after the first empty line, as git reads a bundle's header. */
async function packOffset(bundle: string): Promise<number> {
  const file = await open(bundle, 'r');
  try {
    let header = Buffer.alloc(0);
    while (header.length < MAX_HEADER_BYTES) {
      const chunk = Buffer.alloc(CHUNK_BYTES);
      const { bytesRead } = await file.read(chunk, 0, CHUNK_BYTES, header.length);
      if (bytesRead === 0) break;
      header = Buffer.concat([header, chunk.subarray(0, bytesRead)]);
      if (header.length < SIGNATURE_BYTES) continue;
      if (!SIGNATURES.includes(header.subarray(0, SIGNATURE_BYTES).toString('latin1')))
        throw refused('the export is not a git bundle');
      const end = header.indexOf('\n\n');
      if (end >= 0) return end + 2;
    }
    throw refused('the bundle has no end to its header');
  } finally {
    await file.close();
  }
}

/**
 * Git's complaints about the objects (`error: object <id>: <msg-id>: <text>` lines of its
 * standard error, which `hostGit`'s message carries after `git index-pack failed: `), on one line.
 */
function complaints(message: string): string {
  const errors = [...message.matchAll(/(?:^|\s)error: (.+)$/gm)].map((match) => match[1] ?? '');
  const fatal = /(?:^|\s)fatal: (.+)$/m.exec(message)?.[1];
  const reasons = errors.length > 0 ? errors : [fatal ?? 'git could not read its objects'];
  const shown = reasons.slice(0, 5).join('; ');
  return reasons.length > 5 ? `${shown}; and ${reasons.length - 5} more` : shown;
}

/**
 * Checks every object a sandbox's bundle brings before any of it enters `repoPath` (a mirror the
 * host owns): its pack is indexed by `git index-pack --strict` (the check `git fetch` makes with
 * `fetch.fsckObjects`, which git 2.39 skips for bundles), completed from the repository's own
 * objects but written to a quarantine directory that is then removed. So a malformed or
 * malicious object — a tree entry `.git` in any case or `..`, a `.gitmodules` naming a path out
 * of the repository, a broken commit — fails with PRECONDITION_FAILED
 * (`sandbox_objects_refused`): "the sandbox's commits were refused: <what git found>".
 */
export async function checkBundleObjects(repoPath: string, bundle: string): Promise<void> {
  const offset = await packOffset(bundle);
  const objects = resolve(repoPath, 'objects');
  const quarantine = await mkdtemp(join(objects, 'caravel-check-'));
  try {
    await mkdir(join(quarantine, 'pack'));
    await hostGit(repoPath, ['index-pack', '--stdin', '--fix-thin', '--strict'], {
      env: { GIT_OBJECT_DIRECTORY: quarantine, GIT_ALTERNATE_OBJECT_DIRECTORIES: objects },
      stdin: createReadStream(bundle, { start: offset }),
    }).catch((error: unknown) => {
      throw refused(complaints(error instanceof Error ? error.message : String(error)));
    });
  } finally {
    await rm(quarantine, { recursive: true, force: true });
  }
}
