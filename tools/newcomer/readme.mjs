// Reads the commands a newcomer copies from the README: the shell blocks of a section, each command
// whole (continuation lines joined), with its trailing comment kept apart as what it promises.

/** The text of the `## <title>` section, up to the next `## ` heading. */
export function section(readme, title) {
  const start = readme.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`the README has no "## ${title}" section`);
  const rest = readme.slice(start + 1);
  const end = rest.indexOf('\n## ', 1);
  return end < 0 ? rest : rest.slice(0, end);
}

/** The ```sh blocks of a section, each a list of commands. */
export function shellBlocks(text) {
  const blocks = [];
  for (const match of text.matchAll(/```sh\n([\s\S]*?)```/g)) blocks.push(commands(match[1]));
  return blocks;
}

/** A block's commands: `\`-continued lines joined, `# comment` split off. */
export function commands(block) {
  const joined = block.replace(/\\\n\s*/g, '');
  return joined
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const comment = /\s{2,}#\s(.*)$/.exec(line);
      return {
        command: (comment ? line.slice(0, comment.index) : line).trim(),
        comment: comment?.[1]?.trim() ?? '',
      };
    });
}

/** Inline commands written as `npm start -- …` in a section's prose. */
export function inlineNpmStart(text) {
  return [...text.matchAll(/`(npm start -- [^`]+)`/g)].map((m) => m[1]);
}
