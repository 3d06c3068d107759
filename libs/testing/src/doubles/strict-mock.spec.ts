import { describe, expect, it, jest } from '@jest/globals';
import { strictMock } from './strict-mock.js';

interface Repository {
  get(id: string): Promise<string | null>;
  save(value: string): Promise<void>;
  readonly size: number;
}

describe('strictMock', () => {
  it('answers a stubbed member as stubbed', async () => {
    const repository = strictMock<Repository>({ get: (id) => Promise.resolve(`row ${id}`) });
    await expect(repository.get('a')).resolves.toBe('row a');
  });

  it('throws on an unstubbed method, naming the double and the member', () => {
    const repository = strictMock<Repository>({}, 'repository');
    expect(() => repository.save('x')).toThrow('repository.save is not stubbed (unexpected use)');
  });

  it('throws on reading an unstubbed property, not only on calls', () => {
    const repository = strictMock<Repository>();
    expect(() => repository.size).toThrow('strictMock.size is not stubbed');
  });

  it('takes stubs set later, per test, by assignment', async () => {
    const repository = strictMock<Repository>();
    const save = jest.fn((_value: string) => Promise.resolve());
    repository.save = save;
    await repository.save('y');
    expect(save).toHaveBeenCalledWith('y');
  });

  it('keeps the stubs object it was given unchanged', () => {
    const stubs = {};
    const repository = strictMock<Repository>(stubs);
    repository.save = () => Promise.resolve();
    expect(stubs).toEqual({});
  });

  it('can be awaited, serialised and compared without tripping on probes', async () => {
    const repository = strictMock<Repository>({}, 'repository');
    await expect(Promise.resolve(repository)).resolves.toBe(repository);
    expect(JSON.stringify(repository)).toBe('{}');
    expect({ value: repository }).toEqual({ value: repository });
    // A failed expectation prints the double: printing must not trip on it either.
    expect(() => expect(repository).toBeNull()).toThrow(/toBeNull/);
  });

  it("reads Nest's lifecycle hooks as absent, so a double can be a provider", () => {
    const repository = strictMock<Repository & { onModuleInit?: () => void }>();
    expect(repository.onModuleInit).toBeUndefined();
  });
});
