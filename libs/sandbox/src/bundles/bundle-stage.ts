import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ToolBundle } from './bundle-load.js';

/**
 * Writes a copy of each bundle under `dir/<bundle>` for a read-only bind into a sandbox:
 * world-readable files (`bin/` and executable ones 0555, the rest 0444) in 0755 folders, so
 * the sandbox user reads them whatever host user it runs as. The copy holds the bytes read
 * earlier (`loadBundle`), never a link to the source.
 */
export async function stageBundles(bundles: readonly ToolBundle[], dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o755 });
  await chmod(dir, 0o755);
  for (const bundle of bundles) {
    const root = join(dir, bundle.name);
    await mkdir(root, { mode: 0o755 });
    await chmod(root, 0o755);
    for (const file of bundle.files) {
      const target = join(root, ...file.path.split('/'));
      await mkdir(dirname(target), { recursive: true, mode: 0o755 });
      await writeFile(target, file.content, { mode: 0o600 });
      await chmod(target, file.executable ? 0o555 : 0o444);
    }
  }
}
