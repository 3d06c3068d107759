import { describe, expect, it } from '@jest/globals';
import { DockerStreamDemuxer, dockerStreamFrame } from './docker-stream-demux.js';

const text = (frames: { kind: string; payload: Buffer }[]) =>
  frames.map((frame) => `${frame.kind}:${frame.payload.toString('utf8')}`);

describe('DockerStreamDemuxer', () => {
  it('splits a chunk holding several frames by stream', () => {
    const chunk = Buffer.concat([
      dockerStreamFrame('stdout', 'CARAVEL_READY 7\n'),
      dockerStreamFrame('stderr', 'warning\n'),
      dockerStreamFrame('stdout', 'more'),
    ]);
    expect(text(new DockerStreamDemuxer().push(chunk))).toEqual([
      'stdout:CARAVEL_READY 7\n',
      'stderr:warning\n',
      'stdout:more',
    ]);
  });

  it('reassembles frames cut anywhere, even one byte at a time', () => {
    const bytes = Buffer.concat([
      dockerStreamFrame('stdout', 'héllo'),
      dockerStreamFrame('stderr', ''),
      dockerStreamFrame('stdout', Buffer.from([0, 1, 2, 255])),
    ]);
    const demuxer = new DockerStreamDemuxer();
    const frames = [...bytes].flatMap((byte) => demuxer.push(Buffer.from([byte])));
    expect(frames.map((f) => [f.kind, [...f.payload]])).toEqual([
      ['stdout', [...Buffer.from('héllo')]],
      ['stderr', []],
      ['stdout', [0, 1, 2, 255]],
    ]);
    expect(demuxer.pending).toBe(0);
  });

  it('keeps a partial frame pending until its payload arrives', () => {
    const frame = dockerStreamFrame('stdout', 'abcdef');
    const demuxer = new DockerStreamDemuxer();
    expect(demuxer.push(frame.subarray(0, 10))).toEqual([]);
    expect(demuxer.pending).toBe(10);
    expect(text(demuxer.push(frame.subarray(10)))).toEqual(['stdout:abcdef']);
  });

  it('refuses a stream that is not multiplexed instead of guessing', () => {
    expect(() => new DockerStreamDemuxer().push(Buffer.from('plain tty output\n'))).toThrow(
      'malformed docker stream header',
    );
  });
});
