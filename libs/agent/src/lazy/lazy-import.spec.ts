import { AppError } from '@caravel/errors';
import { LazyImport } from './lazy-import.js';

/** A load the test settles by hand, counting how often it was started. */
function controlledLoad() {
  const calls: { resolve: (value: { answer: number }) => void; reject: (e: Error) => void }[] = [];
  const load = () =>
    new Promise<{ answer: number }>((resolve, reject) => void calls.push({ resolve, reject }));
  return { load, calls };
}

describe('LazyImport', () => {
  it('loads nothing until it is asked, then loads once for every later call', async () => {
    const { load, calls } = controlledLoad();
    const lazy = new LazyImport('the answer', load);
    expect(calls).toHaveLength(0);
    const first = lazy.get();
    calls[0]!.resolve({ answer: 42 });
    const module = await first;
    expect(module).toEqual({ answer: 42 });
    await expect(lazy.get()).resolves.toBe(module);
    expect(calls).toHaveLength(1);
  });

  it('shares one load between concurrent first calls', async () => {
    const { load, calls } = controlledLoad();
    const lazy = new LazyImport('the answer', load);
    const both = Promise.all([lazy.get(), lazy.get()]);
    expect(calls).toHaveLength(1);
    calls[0]!.resolve({ answer: 1 });
    const [a, b] = await both;
    expect(a).toBe(b);
  });

  it('reports a failed load as a coded error naming the module, and loads again next time', async () => {
    const { load, calls } = controlledLoad();
    const lazy = new LazyImport('the coding agent', load);
    const failed = lazy.get();
    const alsoWaiting = lazy.get();
    calls[0]!.reject(new Error("Cannot find package 'langchain'"));
    const error = await failed.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      code: 'INTERNAL',
      retryable: false,
      message: "Could not load the coding agent: Cannot find package 'langchain'",
    });
    await expect(alsoWaiting).rejects.toBe(error);

    const retried = lazy.get();
    expect(calls).toHaveLength(2);
    calls[1]!.resolve({ answer: 2 });
    await expect(retried).resolves.toEqual({ answer: 2 });
  });

  it('loads a real module with a dynamic import', async () => {
    const lazy = new LazyImport('node:path', () => import('node:path'));
    const path = await lazy.get();
    expect(path.join('a', 'b')).toBe('a/b');
  });
});
