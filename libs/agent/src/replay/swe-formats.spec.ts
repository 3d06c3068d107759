import { afterEach, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecRequest, ExecResult } from '@caravel/tools';
import { DirectoryToolSandbox } from '@caravel/tools/testing';
import { readTrajectoryFile } from '../trajectory/swe-formats.js';
import { comparePatches, type PatchDifference } from './patch-compare.js';
import { replayActions } from './replay-engine.js';
import { actionsFromTraj } from './replay-source.js';
import { replayTools } from './replay-tools.js';
import { commandsOfAnswer, lastFencedBlock, renderToolCall } from './swe-actions.js';

const SCM = { branch: 'caravel/replay', pullRequestUrl: '/tmp/origin#caravel/replay' };

function fixture(name: string) {
  const text = readFileSync(new URL(`../trajectory/fixtures/${name}`, import.meta.url), 'utf8');
  return readTrajectoryFile(text, name);
}

/**
 * Stand-ins for SWE-agent's windowed `open` and `edit` commands (what its `windowed` bundles
 * install), enough for the 0.x fixture: `open` remembers the file, `edit a:b` replaces those
 * lines with its stdin.
 */
const WINDOWED_TOOLS = {
  open: `#!/usr/bin/env python3
import os, sys
path = os.path.abspath(sys.argv[1])
open(os.environ["SWE_STATE"], "w").write(path)
lines = open(path).read().splitlines()
print(f"[File: {path} ({len(lines)} lines total)]")
for i, line in enumerate(lines, 1):
    print(f"{i}:{line}")
`,
  edit: `#!/usr/bin/env python3
import os, sys
path = open(os.environ["SWE_STATE"]).read()
start, end = (int(n) for n in sys.argv[1].split(":"))
lines = open(path).read().splitlines(keepends=True)
lines[start - 1 : end] = sys.stdin.read().splitlines(keepends=True)
open(path, "w").write("".join(lines))
print("File updated.")
`,
};

/** A directory sandbox whose shell finds the windowed stand-ins on its PATH. */
class WindowedSandbox extends DirectoryToolSandbox {
  constructor(
    root: string,
    private readonly toolsDir: string,
  ) {
    super(root);
  }

  override exec(request: ExecRequest): Promise<ExecResult> {
    const setup = `export PATH='${this.toolsDir}':"$PATH" SWE_STATE='${this.toolsDir}/state'`;
    return super.exec({ ...request, command: `${setup}\n${request.command}` });
  }
}

/** `src/calc.py` of the fixtures' repository, before the fix. */
const CALC = readFileSync(
  new URL('../trajectory/fixtures/calc-repo.calc.py', import.meta.url),
  'utf8',
);

/** The small repository the fixtures were recorded against: `src/calc.py` lacks a colon. */
function calcRepository(): { root: string; tools: string; remove: () => void } {
  const base = mkdtempSync(join(tmpdir(), 'caravel-swe-formats-'));
  const root = join(base, 'calc-repo');
  const tools = join(base, 'tools');
  mkdirSync(join(root, 'src'), { recursive: true });
  mkdirSync(tools);
  for (const [name, body] of Object.entries(WINDOWED_TOOLS)) {
    writeFileSync(join(tools, name), body);
    chmodSync(join(tools, name), 0o755);
  }
  writeFileSync(join(root, 'src', 'calc.py'), CALC);
  chmodSync(join(root, 'src', 'calc.py'), 0o644);
  writeFileSync(join(root, 'README.md'), '# calc\n\nDivides two numbers.\n');
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@caravel.invalid', ...args], {
      cwd: root,
    });
  git('init', '--quiet', '--initial-branch=main');
  git('add', '-A');
  git('commit', '--quiet', '-m', 'initial');
  return { root, tools, remove: () => rmSync(base, { recursive: true, force: true }) };
}

describe('SWE-agent and mini-swe-agent trajectories replay to their recorded patch', () => {
  let repo: ReturnType<typeof calcRepository> | undefined;
  afterEach(() => {
    repo?.remove();
    repo = undefined;
  });

  it.each<[string, PatchDifference]>([
    ['swe-agent-0.x-windowed.traj', 'whitespace'],
    ['swe-agent-thought-action.traj', 'whitespace'],
    ['swe-agent-function-calling.demo.yaml', 'whitespace'],
    ['mini-swe-agent.traj.json', 'none'],
  ])(
    '%s is submitted with the recorded patch (normalised equal, index line included)',
    async (name, difference) => {
      repo = calcRepository();
      const traj = fixture(name);
      const sandbox = new WindowedSandbox(repo.root, repo.tools);
      const result = await replayActions(
        actionsFromTraj(traj, name),
        replayTools(sandbox, SCM),
        sandbox,
      );
      expect(result.outcomes.filter((o) => !o.ok)).toEqual([]);
      expect(result.submitted).toBe(true);
      const comparison = comparePatches(traj.info.submission, result.patch);
      expect(comparison).toMatchObject({ identical: true, difference });
      expect(result.patch).toContain('index a76fe4b..c72d679 100644');
    },
  );
});

describe('reading the formats', () => {
  it("reads 0.x's JSON-string state and gives the windowed edit its heredoc", () => {
    const traj = fixture('swe-agent-0.x-windowed.traj');
    expect(traj.trajectory[1]?.state).toEqual({
      open_file: '/calc-repo/src/calc.py',
      working_dir: '/calc-repo',
    });
    expect(traj.trajectory[0]?.query).toEqual([]);
    const edit = actionsFromTraj(traj, 'x').find((a) =>
      String(a.args['command']).startsWith('edit'),
    );
    expect(edit?.args['command']).toBe(
      "edit 4:4 << 'end_of_edit'\ndef division(a: float, b: float) -> float:\nend_of_edit",
    );
  });

  it('keeps only the last submit of a review_on_submit run and parses the last fenced block', () => {
    const actions = actionsFromTraj(fixture('swe-agent-thought-action.traj'), 'x');
    expect(actions.map((a) => a.name)).toEqual(['execute', 'execute', 'execute', 'submit']);
    expect(actions[1]?.args['command']).toBe(
      "sed -i 's/-> float$/-> float:/' src/calc.py && python3 reproduce.py",
    );
  });

  it("renders a demonstration's tool calls (it records no action) and takes its submission from the submit observation", () => {
    const traj = fixture('swe-agent-function-calling.demo.yaml');
    expect(actionsFromTraj(traj, 'x').map((a) => a.args['command'] ?? a.name)).toEqual([
      'cat -n src/calc.py',
      "sed -i 's/-> float$/-> float:/' src/calc.py && python3 src/calc.py",
      'submit',
    ]);
    expect(traj.info.submission).toMatch(/^\ndiff --git a\/src\/calc.py/);
    expect(traj.info.submission).not.toContain('(Open file');
    expect(traj.history[0]?.message_type).toBe('system_prompt');
  });

  it("reads mini-swe-agent's message list and ends on its submission marker", () => {
    const traj = fixture('mini-swe-agent.traj.json');
    expect(traj.info.exit_status).toBe('Submitted');
    const actions = actionsFromTraj(traj, 'x');
    expect(actions.at(-1)?.submitMarkers).toContain('COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT');
    expect(actions).toHaveLength(3);
  });

  it('parses answers as the live parsers do', () => {
    expect(lastFencedBlock('a\n```python\nx = 1\n```\nthen\n```bash\nls -a\n```\n')).toBe('ls -a');
    expect(lastFencedBlock('no block')).toBeNull();
    const call = { function: { name: 'find_file', arguments: '{"file_name":"a b.py"}' } };
    expect(renderToolCall(call)).toBe("find_file 'a b.py'");
    expect(
      commandsOfAnswer(
        {
          action: null,
          thought: '',
          response: '```\nedit 1:1\nx\nend_of_edit\n```',
          toolCalls: null,
        },
        'thought_action',
      ),
    ).toEqual(["edit 1:1 << 'end_of_edit'\nx\nend_of_edit"]);
  });
});
