import { describe, expect, it } from '@jest/globals';
import { AppError } from '@caravel/errors';
import { CONTROL_TOKENS, detectControlSignal } from './control-tokens.js';
import { DEFAULT_LOOP_TEMPLATES, renderTemplate } from './loop-templates.js';
import {
  DEFAULT_SHAPING,
  shapeObservation,
  shapeOutput,
  type ObservationShapingConfig,
} from './observation-shaper.js';

const small = (
  maxChars: number,
  mode: ObservationShapingConfig['mode'] = 'head',
): ObservationShapingConfig => ({
  ...DEFAULT_SHAPING,
  maxChars,
  mode,
});

describe('shapeOutput', () => {
  it.each(['', '   ', '\n\n', '\t \n'])(
    'gives the fixed message for the empty output %j',
    (output) => {
      expect(shapeOutput(output)).toEqual({
        kind: 'empty',
        text: DEFAULT_LOOP_TEMPLATES.emptyObservation,
        elidedChars: 0,
        elidedLines: 0,
      });
    },
  );

  it('passes an output within the limit through the observation template', () => {
    expect(shapeOutput('a\nb\n', small(4))).toEqual({
      kind: 'output',
      text: 'OBSERVATION:\na\nb\n',
      elidedChars: 0,
      elidedLines: 0,
    });
  });

  it('keeps the head and counts what it elides', () => {
    const shaped = shapeOutput('line1\nline2\nline3\n', small(8));
    expect(shaped.kind).toBe('truncated');
    expect(shaped.elidedChars).toBe(18 - 8);
    expect(shaped.elidedLines).toBe(2);
    expect(shaped.text).toContain('OBSERVATION:\nline1\nli\n');
    expect(shaped.text).toContain('10 characters (2 lines) elided');
    expect(shaped.text).toContain('longer than 8 characters');
  });

  it('truncates one character over the limit', () => {
    const shaped = shapeOutput('abcdef', small(5));
    expect(shaped).toMatchObject({ kind: 'truncated', elidedChars: 1, elidedLines: 1 });
  });

  it('keeps head and tail halves in head_tail mode', () => {
    const output = `${'h'.repeat(5)}\n${'m'.repeat(20)}\n${'t'.repeat(5)}`;
    const shaped = shapeOutput(output, small(12, 'head_tail'));
    expect(shaped.elidedChars).toBe(output.length - 12);
    expect(shaped.text).toContain('hhhhh\n');
    expect(shaped.text).toContain('\nttttt');
    expect(shaped.text).not.toContain('mmmmmmmmmmmmmmmmmmmm');
    expect(shaped.elidedLines).toBe(1);
  });

  it('counts a single long line cut in the middle as elided', () => {
    const shaped = shapeOutput('x'.repeat(50), small(10, 'head_tail'));
    expect(shaped).toMatchObject({ elidedChars: 40, elidedLines: 1 });
  });

  it('uses 100 000 characters by default', () => {
    expect(shapeOutput('x'.repeat(100_000)).kind).toBe('output');
    expect(shapeOutput('x'.repeat(100_001)).kind).toBe('truncated');
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => shapeOutput('x', small(0))).toThrow(AppError);
  });
});

describe('shapeObservation', () => {
  it('reports a timed-out command with its timeout', () => {
    const shaped = shapeObservation({ timedOut: true, command: 'sleep 100', timeoutSeconds: 30 });
    expect(shaped.kind).toBe('timeout');
    expect(shaped.text).toContain("'sleep 100' was cancelled after 30 seconds");
    expect(shaped.text).not.toMatch(/\n$/);
  });

  it('appends the shaped partial output of a timed-out command', () => {
    const shaped = shapeObservation(
      {
        timedOut: true,
        command: 'pytest',
        timeoutSeconds: 5,
        partialOutput: 'collected 3 items\n'.repeat(3),
      },
      small(20),
    );
    expect(shaped.text).toContain('Output before it was cancelled:');
    expect(shaped.text).toContain('collected 3 items');
    expect(shaped.elidedChars).toBe(54 - 20);
  });

  it('shapes an ordinary result like shapeOutput', () => {
    expect(shapeObservation({ timedOut: false, output: '' }).kind).toBe('empty');
  });
});

describe('renderTemplate', () => {
  it('fails on a placeholder without a value instead of sending it to the model', () => {
    expect(() => renderTemplate('{{observation}} {{missing}}', { observation: 'x' })).toThrow(
      "'{{missing}}'",
    );
  });

  it('does not interpret replacement patterns in values', () => {
    expect(renderTemplate('{{a}}', { a: '$& $1' })).toBe('$& $1');
  });
});

describe('detectControlSignal', () => {
  it.each([
    [`done ${CONTROL_TOKENS.retryWithOutput}`, 'retry_with_output', 'done '],
    [`${CONTROL_TOKENS.retryWithoutOutput}`, 'retry_without_output', ''],
    [`bye ${CONTROL_TOKENS.forfeit}`, 'forfeit', `bye ${CONTROL_TOKENS.forfeit}`],
    [
      `${CONTROL_TOKENS.submission}\ndiff\n${CONTROL_TOKENS.submission}`,
      'submit',
      `${CONTROL_TOKENS.submission}\ndiff\n${CONTROL_TOKENS.submission}`,
    ],
    ['plain output', 'none', 'plain output'],
  ])('reads %j', (output, signal, rest) => {
    expect(detectControlSignal(output)).toEqual({ signal, output: rest });
  });
});
