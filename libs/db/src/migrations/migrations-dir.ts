import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = '@caravel/db';

function isPackageRoot(dir: string): boolean {
  const manifest = join(dir, 'package.json');
  if (!existsSync(manifest)) return false;
  try {
    return (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === PACKAGE_NAME;
  } catch {
    return false;
  }
}

/**
 * The package's `prisma/migrations`, found by walking up from this module to the package root,
 * so it is the same folder from `src/` (Jest, tsx) and from a built `dist/`.
 */
export function defaultMigrationsDir(
  from: string = dirname(fileURLToPath(import.meta.url)),
): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (isPackageRoot(dir)) return join(dir, 'prisma', 'migrations');
    if (dirname(dir) === dir)
      throw new Error(`${PACKAGE_NAME} package root not found above ${from}`);
  }
}
