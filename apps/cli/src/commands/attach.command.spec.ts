import { describeEvent, parseLine } from './attach.command.js';

describe('caravel attach', () => {
  it('reads a typed line as a message, a !command, or a local instruction', () => {
    expect(parseLine('please also update the docs')).toEqual({
      kind: 'message',
      text: 'please also update the docs',
    });
    expect(parseLine('  !npm test -- --watch=false ')).toEqual({
      kind: 'command',
      text: 'npm test -- --watch=false',
    });
    expect(parseLine('/quit')).toBe('quit');
    expect(parseLine('/help')).toBe('help');
    expect(parseLine(' /recreate ')).toBe('recreate');
    expect(parseLine('/stop')).toBe('stop');
    expect(parseLine('   ')).toBeNull();
    expect(parseLine('!')).toBeNull();
  });

  it("shows a person's step under their name and the agent's without one", () => {
    const step = (actor: string) => ({
      position: 3,
      type: 'evt.run.step',
      runId: 'r',
      data: { step: 2, actor, action: 'execute {"command":"ls"}', observation: 'README.md\nsrc' },
    });
    expect(describeEvent(step('human:synthetic:alice'))).toBe(
      '  step 2 [human:synthetic:alice]: execute {"command":"ls"}\n    → README.md',
    );
    expect(describeEvent(step('agent'))).toBe(
      '  step 2: execute {"command":"ls"}\n    → README.md',
    );
    expect(describeEvent({ position: 1, type: 'evt.other', runId: null, data: {} })).toBeNull();
  });

  it("shows a running command's output line by line as it comes", () => {
    const output = (text: string) => ({
      position: 4,
      type: 'evt.run.output',
      runId: 'r',
      data: { piece: 0, text },
    });
    expect(describeEvent(output('PASS a.test.js\nPASS b.test.js\n'))).toBe(
      '    | PASS a.test.js\n    | PASS b.test.js',
    );
    expect(describeEvent(output(''))).toBeNull();
  });
});
