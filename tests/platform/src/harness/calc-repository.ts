import { execFileSync } from 'node:child_process';
import { chmod, copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `src/calc.py` of the SWE-agent-shaped fixtures' repository, before the fix. */
const CALC = fileURLToPath(
  new URL('../../../../libs/agent/src/trajectory/fixtures/calc-repo.calc.py', import.meta.url),
);

/**
 * The small repository the SWE-agent-shaped fixtures were recorded against, under `parent` as
 * `calc-repo`: `src/calc.py` lacks a colon (blob a76fe4b), one commit.
 */
export async function calcRepository(parent: string): Promise<string> {
  const root = join(parent, 'calc-repo');
  await mkdir(join(root, 'src'), { recursive: true });
  await copyFile(CALC, join(root, 'src', 'calc.py'));
  await chmod(join(root, 'src', 'calc.py'), 0o644);
  await writeFile(join(root, 'README.md'), '# calc\n\nDivides two numbers.\n');
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@caravel.invalid', ...args], {
      cwd: root,
    });
  git('init', '--quiet', '--initial-branch=main');
  git('add', '-A');
  git('commit', '--quiet', '-m', 'initial');
  return root;
}
