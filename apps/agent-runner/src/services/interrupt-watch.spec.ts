import { RunInterruptNotice } from '@caravel/contracts';
import type { Bus } from '@caravel/messaging';
import { strictMock } from '@caravel/testing/doubles';
import { InterruptWatch, listenForInterrupts } from './interrupt-watch.js';

async function until(predicate: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !predicate(); i += 1) await new Promise((r) => setTimeout(r, 5));
}

describe('InterruptWatch', () => {
  it('aborts its signal once an interrupting follow-up is waiting, and stops asking', async () => {
    const answers = [false, false, true];
    let asked = 0;
    const watch = new InterruptWatch(() => Promise.resolve(answers[asked++] ?? true), 1);
    await until(() => watch.interrupted);
    const askedWhenInterrupted = asked;
    await new Promise((r) => setTimeout(r, 30));
    expect(watch.signal.aborted).toBe(true);
    expect(askedWhenInterrupted).toBe(3);
    expect(asked).toBe(3);
  });

  it('keeps watching through a failed check, and never fires once stopped', async () => {
    let asked = 0;
    const watch = new InterruptWatch(() => {
      asked += 1;
      return asked === 1 ? Promise.reject(new Error('db blip')) : Promise.resolve(false);
    }, 1);
    await until(() => asked >= 3);
    watch.stop();
    const after = asked;
    await new Promise((r) => setTimeout(r, 30));
    expect(watch.interrupted).toBe(false);
    expect(asked).toBe(after);
  });
});

describe('InterruptWatch checks on a notice', () => {
  const HOUR = 3_600_000;

  it('checks at once when told, without waiting for its poll', async () => {
    let asked = 0;
    const watch = new InterruptWatch(() => Promise.resolve(++asked === 1), HOUR);
    await watch.check();
    expect({ asked, interrupted: watch.interrupted }).toEqual({ asked: 1, interrupted: true });
    watch.stop();
  });

  it('checks again right after a check that was already looking when told', async () => {
    let release!: (waiting: boolean) => void;
    const answers: Promise<boolean>[] = [
      new Promise<boolean>((resolve) => (release = resolve)),
      Promise.resolve(true),
    ];
    let asked = 0;
    const watch = new InterruptWatch(() => answers[asked++] ?? Promise.resolve(true), HOUR);
    const first = watch.check();
    void watch.check(); // the notice arrives while the first check still reads
    release(false); // that read came before the message was stored
    await first;
    await until(() => watch.interrupted);
    expect({ asked, interrupted: watch.interrupted }).toEqual({ asked: 2, interrupted: true });
    watch.stop();
  });

  it('ignores a notice once stopped', async () => {
    let asked = 0;
    const watch = new InterruptWatch(() => Promise.resolve(++asked > 0), HOUR);
    watch.stop();
    await watch.check();
    expect({ asked, interrupted: watch.interrupted }).toEqual({ asked: 0, interrupted: false });
  });

  it("serves the thread's interrupt notice and refuses a malformed one", async () => {
    const threadId = '6a0e3f8e-5a55-4a6e-9a55-0d2a4c1b7e10';
    let served: { subject: string; handler: (raw: unknown) => Promise<unknown> } | undefined;
    const bus = strictMock<Bus>({
      serve: (subject, handler) => {
        served = { subject, handler: (raw) => handler(raw, subject, {}) };
        return Promise.resolve({ drain: () => Promise.resolve() });
      },
    });
    let asked = 0;
    const watch = new InterruptWatch(() => Promise.resolve(++asked === 1), HOUR);
    await listenForInterrupts(bus, threadId, watch);

    expect(served?.subject).toBe(RunInterruptNotice.subjectFor(threadId));
    await expect(served?.handler({ threadId, messageId: 'm1' })).resolves.toEqual({
      checking: true,
    });
    await until(() => watch.interrupted);
    expect(asked).toBe(1);
    await expect(served?.handler({ threadId })).rejects.toMatchObject({
      code: 'MESSAGE_MALFORMED',
    });
    watch.stop();
  });
});
