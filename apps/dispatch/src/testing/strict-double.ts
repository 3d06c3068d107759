/** A double whose every method must be stubbed: an unexpected call fails loudly. */
export function strict<T extends object>(stubs: Partial<Record<keyof T, unknown>>): T {
  return new Proxy(stubs, {
    get(target, key) {
      if (key in target) return target[key as keyof T];
      if (key === 'then') return undefined;
      throw new Error(`unexpected call: ${String(key)}`);
    },
  }) as T;
}
