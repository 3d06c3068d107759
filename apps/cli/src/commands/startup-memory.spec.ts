import {
  tierUpOnlyHotWebAssembly,
  WASM_TIERING_BUDGET,
  withSmallYoungGeneration,
} from './startup-memory.js';

describe('withSmallYoungGeneration', () => {
  it('holds the young generation while the boot runs and lets it grow after', async () => {
    const flags: string[] = [];
    const setFlags = (flag: string): void => void flags.push(flag);
    const booted = await withSmallYoungGeneration(() => {
      flags.push('boot');
      return Promise.resolve('host');
    }, setFlags);
    expect(booted).toBe('host');
    expect(flags).toEqual(['--semi-space-growth-factor=1', 'boot', '--semi-space-growth-factor=2']);
  });

  it('lets it grow again when the boot fails', async () => {
    const flags: string[] = [];
    const boot = withSmallYoungGeneration(
      () => Promise.reject(new Error('port in use')),
      (flag) => void flags.push(flag),
    );
    await expect(boot).rejects.toThrow('port in use');
    expect(flags).toEqual(['--semi-space-growth-factor=1', '--semi-space-growth-factor=2']);
  });
});

describe('tierUpOnlyHotWebAssembly', () => {
  it("raises V8's WebAssembly tiering budget above its default", () => {
    const flags: string[] = [];
    tierUpOnlyHotWebAssembly((flag) => void flags.push(flag));
    expect(flags).toEqual([`--wasm-tiering-budget=${WASM_TIERING_BUDGET}`]);
    expect(WASM_TIERING_BUDGET).toBeGreaterThan(1_800_000);
  });
});
