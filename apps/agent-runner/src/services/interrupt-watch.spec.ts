import { InterruptWatch } from './interrupt-watch.js';

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
