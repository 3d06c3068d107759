/**
 * Members that JavaScript, Jest and NestJS look up on any value they are handed: a promise
 * resolving to the double (`then`), `JSON.stringify` (`toJSON`), Jest's equality and printing,
 * and Nest's lifecycle hooks on every provider. They read as absent (unless stubbed) instead of
 * throwing, so a double can be awaited, compared, printed and provided to a Nest module.
 */
const PROBED = new Set([
  'then',
  'toJSON',
  'asymmetricMatch',
  '$$typeof',
  'nodeType',
  '@@__IMMUTABLE_ITERABLE__@@',
  '@@__IMMUTABLE_RECORD__@@',
  'onModuleInit',
  'onApplicationBootstrap',
  'onModuleDestroy',
  'beforeApplicationShutdown',
  'onApplicationShutdown',
]);

/** What a test stubs on a {@link strictMock}: any members of `T`, each with its own type. */
export type Stubs<T> = { [K in keyof T]?: T[K] };

/**
 * A strict test double of `T`: a member the test stubbed answers as stubbed; reading any other
 * member throws an error naming the double and the member, so an unexpected call fails where it
 * is made instead of returning `undefined` into the code under test.
 *
 * Stubs are given at creation or set later, per test, by plain assignment (typed against `T`):
 *
 * ```ts
 * const threads = strictMock<ThreadRepository>({ get: () => Promise.resolve(null) }, 'threads');
 * threads.setStatus = jest.fn(() => Promise.resolve(factory.thread()));
 * await threads.upsert(input); // Error: threads.upsert is not stubbed (unexpected use)
 * ```
 *
 * Symbols and the few members every value is probed for (`then`, `toJSON`, Jest's matcher
 * markers, Nest's lifecycle hooks) read as absent, so a double can be awaited, serialised,
 * printed by `expect` and provided to a Nest module.
 *
 * @param stubs the members this double answers; copied, so the caller's object is not changed.
 * @param name how errors call the double (`threads`, `bus`); `strictMock` when not given.
 */
export function strictMock<T extends object>(stubs: Stubs<T> = {}, name = 'strictMock'): T {
  const target: Record<PropertyKey, unknown> = { ...stubs };
  return new Proxy(target, {
    get(members, key) {
      if (key in members || typeof key === 'symbol' || PROBED.has(key)) {
        return members[key];
      }
      throw new Error(`${name}.${key} is not stubbed (unexpected use)`);
    },
  }) as T;
}
