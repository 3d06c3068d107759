// A small Dockerfile reader for the deployment specs: instructions grouped into stages, with
// line continuations joined and comments dropped, and a stage's effective USER through its
// `FROM <earlier stage>` chain.

export interface Instruction {
  keyword: string;
  args: string;
}

export interface Stage {
  name: string;
  base: string;
  instructions: Instruction[];
}

function logicalLines(text: string): string[] {
  const lines: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const full = `${pending}${line}`.trim();
    pending = '';
    if (full) lines.push(full);
  }
  return lines;
}

/** The stages of a Dockerfile, in order. Instructions before the first FROM (ARG) are skipped. */
export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  for (const line of logicalLines(text)) {
    const [keyword = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (keyword.toUpperCase() === 'FROM') {
      const match = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      stages.push({
        base: match?.[1] ?? args,
        name: match?.[2] ?? `#${stages.length}`,
        instructions: [],
      });
    } else if (stages.length > 0) {
      stages.at(-1)!.instructions.push({ keyword: keyword.toUpperCase(), args });
    }
  }
  return stages;
}

/** The stage and the earlier stages it is built FROM, nearest first. */
export function stageChain(stages: readonly Stage[], name: string): Stage[] {
  const chain: Stage[] = [];
  let current = stages.find((s) => s.name === name);
  while (current && !chain.includes(current)) {
    chain.push(current);
    const base = current.base;
    current = stages.find((s) => s.name === base);
  }
  return chain;
}

/** The last value of an instruction along the stage chain (CMD, USER, …), or undefined. */
export function effective(
  stages: readonly Stage[],
  name: string,
  keyword: string,
): string | undefined {
  for (const stage of stageChain(stages, name)) {
    const found = stage.instructions.filter((i) => i.keyword === keyword).at(-1);
    if (found) return found.args;
  }
  return undefined;
}

/** Every instruction of a keyword along the stage chain. */
export function collected(stages: readonly Stage[], name: string, keyword: string): string[] {
  return stageChain(stages, name)
    .flatMap((s) => s.instructions)
    .filter((i) => i.keyword === keyword)
    .map((i) => i.args);
}
