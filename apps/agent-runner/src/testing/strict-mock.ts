/** What a test stubs on a {@link strictMock}: any members of `T`, each with its own type. */
export type Stubs<T> = { [K in keyof T]?: T[K] };

/** Members every value is probed for (awaiting, printing, Jest's equality): they read as absent. */
const PROBED = new Set(['then', 'toJSON', 'asymmetricMatch', '$$typeof', 'nodeType']);

/**
 * A strict double of `T`: a stubbed member answers as stubbed, reading any other one throws,
 * naming the double and the member. A stand-in with the signature of `@caravel/testing`'s
 * `strictMock`, until that one lands.
 */
export function strictMock<T extends object>(stubs: Stubs<T> = {}, name = 'strictMock'): T {
  const target: Record<PropertyKey, unknown> = { ...stubs };
  return new Proxy(target, {
    get(members, key) {
      if (key in members || typeof key === 'symbol' || PROBED.has(key)) {
        return Reflect.get(members, key);
      }
      throw new Error(`${name}.${key} is not stubbed (unexpected use)`);
    },
  }) as T;
}
