import { describe, expect, it } from '@jest/globals';
import { LiveOutput, type LiveOutputPiece } from './live-output.js';

const limits = { flushMs: 20, pieceChars: 10, runChars: 25 };
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function recording(options: { failFirst?: boolean } = {}) {
  const sent: LiveOutputPiece[] = [];
  const failures: unknown[] = [];
  let calls = 0;
  const live = new LiveOutput(
    (piece) => {
      calls += 1;
      if (options.failFirst && calls === 1) return Promise.reject(new Error('bus down'));
      sent.push(piece);
      return Promise.resolve();
    },
    (error) => failures.push(error),
    limits,
  );
  return { live, sent, failures };
}

describe('LiveOutput', () => {
  it('batches small writes into one piece sent after the flush delay', async () => {
    const { live, sent } = recording();
    live.push('a');
    live.push('b');
    expect(sent).toEqual([]);
    await settle(60);
    expect(sent).toEqual([{ piece: 0, text: 'ab', capped: false }]);
    await live.close();
  });

  it('sends a full piece at once and keeps pieces in order', async () => {
    const { live, sent } = recording();
    live.push('0123456789AB');
    live.push('C');
    await live.close();
    expect(sent.map((p) => [p.piece, p.text])).toEqual([
      [0, '0123456789'],
      [1, 'ABC'],
    ]);
  });

  it("stops at the run's cap with one note, and ignores what follows", async () => {
    const { live, sent } = recording();
    live.push('x'.repeat(40));
    live.push('more');
    await live.close();
    expect(sent.map((p) => p.text.length <= 10 || p.capped)).toEqual([true, true, true]);
    const last = sent.at(-1)!;
    expect(last).toMatchObject({ piece: 2, capped: true });
    expect(last.text).toMatch(/^x{5}\n\[live output stops here/);
    expect(sent.map((p) => p.text.replace(/\n\[live[\s\S]*$/, '')).join('')).toBe('x'.repeat(25));
  });

  it('reports a failed send and carries on with the next piece', async () => {
    const { live, sent, failures } = recording({ failFirst: true });
    live.push('first piece!');
    live.push('second');
    await live.close();
    expect(failures).toHaveLength(1);
    expect(sent.map((p) => p.piece)).toEqual([1]);
  });

  it('sends nothing after close', async () => {
    const { live, sent } = recording();
    live.push('kept');
    await live.close();
    live.push('late');
    await settle(40);
    expect(sent.map((p) => p.text)).toEqual(['kept']);
  });
});
