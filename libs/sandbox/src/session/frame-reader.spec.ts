import { describe, expect, it } from '@jest/globals';
import { FrameReader, type DriverFrame, type DriverOutputFrame } from './frame-reader.js';

const results = (frames: (DriverFrame | DriverOutputFrame)[]): DriverFrame[] =>
  frames.filter((f): f is DriverFrame => f.kind === 'result');

const frame = (
  sentinel: string,
  body: string,
  header = `${sentinel} 0 0 ${body.length} ${body.length} 0`,
) => Buffer.from(`${header}\n${body}${sentinel} END\n`);

describe('FrameReader', () => {
  it('reads the greeting, then frames split across chunks', () => {
    const reader = new FrameReader(1024);
    const bytes = Buffer.concat([Buffer.from('CARAVEL_READY 2\n'), frame('S1', 'hello\n')]);
    const first = reader.push(bytes.subarray(0, 20));
    expect(first.readyPid).toBe(2);
    expect(first.frames).toEqual([]);
    const rest = reader.push(bytes.subarray(20));
    expect(results(rest.frames).map((f) => [f.sentinel, f.head.toString()])).toEqual([
      ['S1', 'hello\n'],
    ]);
  });

  it('takes output bytes by count, so output that looks like framing stays output', () => {
    const reader = new FrameReader(1024);
    reader.push(Buffer.from('CARAVEL_READY 2\n'));
    const tricky = 'S1 END\nS1 0 0 1 1 0\n';
    const { frames } = reader.push(frame('S1', tricky));
    expect(frames).toHaveLength(1);
    expect(results(frames)[0]?.head.toString()).toBe(tricky);
  });

  it('splits head and tail and reports exit code, timeout and total', () => {
    const reader = new FrameReader(1024);
    reader.push(Buffer.from('CARAVEL_READY 2\n'));
    const { frames } = reader.push(frame('S2', 'headtail', 'S2 143 1 5000 4 4'));
    expect(frames[0]).toMatchObject({ exitCode: 143, timedOut: true, totalBytes: 5000 });
    expect(results(frames)[0]?.tail.toString()).toBe('tail');
  });

  it('reads streamed output frames by count, in order, before the result', () => {
    const reader = new FrameReader(1024);
    reader.push(Buffer.from('CARAVEL_READY 2\n'));
    const bytes = Buffer.concat([
      Buffer.from('S5 OUT 9\nS5 OUT 1\n'),
      Buffer.from('S5 OUT 3\nabc'),
      frame('S5', 'done'),
    ]);
    const first = reader.push(bytes.subarray(0, 12));
    expect(first.frames).toEqual([]);
    const { frames } = reader.push(bytes.subarray(12));
    expect(frames.map((f) => f.kind)).toEqual(['output', 'output', 'result']);
    expect(
      frames.map((f) => (f.kind === 'output' ? f.bytes.toString() : f.head.toString())),
    ).toEqual(['S5 OUT 1\n', 'abc', 'done']);
  });

  it('rejects a bad greeting, a malformed header and a missing trailer', () => {
    expect(() => new FrameReader(64).push(Buffer.from('hello\n'))).toThrow(/greeting/);
    const reader = new FrameReader(1024);
    reader.push(Buffer.from('CARAVEL_READY 2\n'));
    expect(() => reader.push(Buffer.from('garbage\n'))).toThrow(/malformed/);
    const other = new FrameReader(1024);
    other.push(Buffer.from('CARAVEL_READY 2\n'));
    expect(() => other.push(Buffer.from('S3 0 0 1 1 0\nxS4 END\n'))).toThrow(/trailer/);
  });

  it('refuses to buffer without bound', () => {
    const reader = new FrameReader(16);
    reader.push(Buffer.from('CARAVEL_READY 2\n'));
    expect(() => reader.push(Buffer.from('S1 0 0 100 100 0\n' + 'x'.repeat(50)))).toThrow(
      /exceeds/,
    );
  });
});
