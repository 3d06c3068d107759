/**
 * Shell that leaves the id of a tree holding the worktree as it is (tracked and untracked files,
 * ignored ones left out) in `$tree`, and `HEAD` (if born) in `$head`. It works in a scratch index
 * (`GIT_INDEX_FILE` in a temporary directory), so the real index, HEAD and files are untouched.
 * It sets an EXIT trap, so run it at most once per script, in a subshell.
 */
export const WORKTREE_TREE_SCRIPT = String.raw`scratch=$(mktemp -d)
trap 'rm -rf -- "$scratch"' EXIT
export GIT_INDEX_FILE="$scratch/index"
head=$(git rev-parse -q --verify HEAD^{commit} || true)
if [ -n "$head" ]; then git read-tree "$head"; fi
git add -A
tree=$(git write-tree)`;
