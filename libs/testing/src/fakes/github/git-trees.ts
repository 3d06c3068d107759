import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { FakeResponse, LoopbackApi } from '../http/loopback-api.js';

/** One entry of a tree as GitHub lists it (`size` for blobs only). */
interface TreeEntryJson {
  path: string;
  mode: string;
  type: string;
  sha: string;
  size?: number;
  url: string;
}

const notFound: FakeResponse = { status: 404, body: { message: 'Not Found' } };

/**
 * `GET /repos/{o}/{r}/git/trees/{ref}[?recursive=1]` over `<root>/<owner>/<name>.git`, for the
 * repositories declared on the fake: the tree of `ref` (a commit, a branch, a tree's sha, or
 * `HEAD` for the repository's default branch) listed by `git ls-tree` (every path, sub-trees
 * included, when `recursive` is given any value, as GitHub reads it), in GitHub's shape; 404 for
 * a ref the repository does not hold. GitHub cuts a recursive listing of a very large repository
 * short (100,000 entries) and says `truncated: true`: a test sets a smaller limit with
 * {@link limit}.
 */
export class GitTrees {
  private readonly limits = new Map<string, number>();

  constructor(
    private readonly root: string | undefined,
    private readonly defaultBranchOf: (fullName: string) => string | undefined,
    private readonly origin: () => string,
  ) {}

  /** Lists at most `entries` entries of `fullName`'s recursive trees (none: no limit). */
  limit(fullName: string, entries: number | undefined): this {
    if (entries === undefined) this.limits.delete(fullName.toLowerCase());
    else this.limits.set(fullName.toLowerCase(), entries);
    return this;
  }

  /** The answer to a tree request for `fullName` (lower case) at `ref`. */
  answer(fullName: string, ref: string, recursive: boolean): FakeResponse {
    const defaultBranch = this.defaultBranchOf(fullName);
    if (this.root === undefined || defaultBranch === undefined || ref.startsWith('-')) {
      return notFound;
    }
    const repository = join(this.root, `${fullName}.git`);
    const treeish = ref === 'HEAD' ? defaultBranch : ref;
    const tree = git(repository, 'rev-parse', '--verify', '--quiet', `${treeish}^{tree}`)?.trim();
    if (!tree) return notFound;
    const listing = git(
      repository,
      'ls-tree',
      '-z',
      '-l',
      ...(recursive ? ['-r', '-t'] : []),
      tree,
    );
    if (listing === null) return notFound;
    const api = `${this.origin()}/repos/${fullName}/git`;
    const entries = listing
      .split('\0')
      .filter(Boolean)
      .map((line) => entryOf(line, api));
    const limit = recursive ? this.limits.get(fullName) : undefined;
    const truncated = limit !== undefined && entries.length > limit;
    return {
      status: 200,
      body: {
        sha: tree,
        url: `${api}/trees/${tree}`,
        truncated,
        tree: truncated ? entries.slice(0, limit) : entries,
      },
    };
  }
}

/** Registers the trees route on `api`; returns the trees, for a test to set a limit on. */
export function registerTreeRoutes(
  api: LoopbackApi,
  root: string | undefined,
  defaultBranchOf: (fullName: string) => string | undefined,
): GitTrees {
  const trees = new GitTrees(root, defaultBranchOf, () => api.origin);
  api.route('GET', '/repos/:owner/:repo/git/trees/:ref', (call, p) =>
    trees.answer(
      `${p['owner']}/${p['repo']}`.toLowerCase(),
      String(p['ref']),
      call.query['recursive'] !== undefined,
    ),
  );
  return trees;
}

/** An `ls-tree -l` line (`<mode> <type> <sha> <size>\t<path>`) as GitHub's entry. */
function entryOf(line: string, api: string): TreeEntryJson {
  const tab = line.indexOf('\t');
  const [meta, path] = [line.slice(0, tab), line.slice(tab + 1)];
  const [mode = '', type = '', sha = '', size = '-'] = meta.split(/\s+/);
  return {
    path,
    mode,
    type,
    sha,
    ...(type === 'blob' ? { size: Number(size) } : {}),
    url: `${api}/${type === 'tree' ? 'trees' : 'blobs'}/${sha}`,
  };
}

function git(cwd: string, ...args: string[]): string | null {
  try {
    return execFileSync('git', ['-c', 'safe.directory=*', ...args], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return null;
  }
}
