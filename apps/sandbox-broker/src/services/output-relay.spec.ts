import { SANDBOX_OUTPUT_PIECE_MAX_CHARS, SandboxExecOutput } from '@caravel/contracts';
import type { Bus } from '@caravel/messaging';
import { strictMock } from '@caravel/testing/doubles';
import { OutputRelay } from './output-relay.js';

const callerId = '5f2b7c1e-8d44-5a36-9a0e-2f6a1b3c4d5e';
const streamId = '0b8f3a52-1c7d-4e69-8f21-6a5d4c3b2a10';

interface Sent {
  subject: string;
  piece: ReturnType<typeof SandboxExecOutput.parseRequest>;
}

/** A bus that only answers `request`, each answer released by the test. */
function scriptedBus() {
  const sent: Sent[] = [];
  const answers: ((outcome: { accepted: boolean } | Error) => void)[] = [];
  const bus = strictMock<Bus>(
    {
      request: <T>(subject: string, payload: unknown) => {
        sent.push({ subject, piece: SandboxExecOutput.parseRequest(payload) });
        return new Promise<T>((resolve, reject) => {
          answers.push((outcome) =>
            outcome instanceof Error ? reject(outcome) : resolve(outcome as T),
          );
        });
      },
    },
    'bus',
  );
  const answerNext = async (outcome: { accepted: boolean } | Error = { accepted: true }) => {
    const answer = answers.shift();
    if (!answer) throw new Error('no piece is waiting for an answer');
    answer(outcome);
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { bus, sent, answerNext };
}

describe('OutputRelay', () => {
  it('sends one piece at a time, in order, joining what arrives while one is in flight', async () => {
    const { bus, sent, answerNext } = scriptedBus();
    const relay = new OutputRelay(bus, callerId, streamId);
    relay.push('one\n');
    relay.push('two\n');
    relay.push('three\n');
    expect(sent.map((s) => s.piece.text)).toEqual(['one\n']);
    await answerNext();
    expect(sent.map((s) => s.piece.text)).toEqual(['one\n', 'two\nthree\n']);
    const finished = relay.finish();
    await answerNext();
    await finished;
    expect(sent.map((s) => [s.subject, s.piece.seq, s.piece.streamId])).toEqual([
      [`sandbox-caller.${callerId}.output`, 0, streamId],
      [`sandbox-caller.${callerId}.output`, 1, streamId],
    ]);
  });

  it('cuts long output into pieces that fit a message without splitting a character', async () => {
    const { bus, sent, answerNext } = scriptedBus();
    const relay = new OutputRelay(bus, callerId, streamId);
    const text = `${'a'.repeat(SANDBOX_OUTPUT_PIECE_MAX_CHARS - 1)}😀tail`;
    relay.push(text);
    await answerNext();
    await answerNext();
    await relay.finish();
    expect(sent.map((s) => s.piece.text.length)).toEqual([SANDBOX_OUTPUT_PIECE_MAX_CHARS - 1, 6]);
    expect(sent.map((s) => s.piece.text).join('')).toBe(text);
  });

  it('stops for good, dropping what is buffered, when the caller refuses a piece', async () => {
    const { bus, sent, answerNext } = scriptedBus();
    const relay = new OutputRelay(bus, callerId, streamId);
    relay.push('first');
    relay.push('buffered');
    await answerNext({ accepted: false });
    await relay.finish();
    relay.push('later');
    expect(relay.isStopped).toBe(true);
    expect(sent.map((s) => s.piece.text)).toEqual(['first']);
  });

  it('stops when the caller is gone (no answer), without retrying', async () => {
    const { bus, sent, answerNext } = scriptedBus();
    const relay = new OutputRelay(bus, callerId, streamId);
    relay.push('first');
    relay.push('second');
    await answerNext(new Error('no responders'));
    await relay.finish();
    expect(relay.isStopped).toBe(true);
    expect(sent).toHaveLength(1);
  });
});
