import { describe, expect, it } from '@jest/globals';
import { OutputStreams } from './output-streams.js';

const callerId = '5f2b7c1e-8d44-5a36-9a0e-2f6a1b3c4d5e';

describe('OutputStreams', () => {
  it('hands pieces to the listener of their stream, once each', () => {
    const streams = new OutputStreams();
    const seen: string[] = [];
    const { streamId, close } = streams.listen((text) => seen.push(text));
    const piece = (seq: number, text: string) => streams.deliver({ callerId, streamId, seq, text });
    expect(piece(0, 'a')).toEqual({ accepted: true });
    expect(piece(1, 'b')).toEqual({ accepted: true });
    expect(piece(1, 'b')).toEqual({ accepted: true });
    expect(seen).toEqual(['a', 'b']);
    close();
    expect(piece(2, 'c')).toEqual({ accepted: false });
    expect(seen).toEqual(['a', 'b']);
    expect(streams.size).toBe(0);
  });

  it('refuses pieces of a stream nobody listens to, and survives a throwing listener', () => {
    const streams = new OutputStreams();
    const unknown = '0b8f3a52-1c7d-4e69-8f21-6a5d4c3b2a10';
    expect(streams.deliver({ callerId, streamId: unknown, seq: 0, text: 'x' })).toEqual({
      accepted: false,
    });
    const { streamId } = streams.listen(() => {
      throw new Error('display broke');
    });
    expect(streams.deliver({ callerId, streamId, seq: 0, text: 'x' })).toEqual({ accepted: true });
    expect(streams.size).toBe(1);
  });
});
