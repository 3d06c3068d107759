import { AppError } from '@caravel/errors';

/**
 * A module loaded with a dynamic `import()` the first time it is needed, not when its importer
 * starts: how the agent's services keep LangChain and the model providers' SDKs out of their start
 * (~1-2 s and ~60 MB) until their first run. Concurrent first calls share one load; a load that
 * failed is reported to the call that asked for it, as an {@link AppError} naming what could not be
 * loaded, and tried again by the next call instead of being remembered.
 */
export class LazyImport<T> {
  private loading: Promise<T> | undefined;

  /**
   * @param what What the module is, for the error a failed load raises ("the coding agent").
   * @param load The dynamic import, e.g. `() => import('./agent-kit.js')`.
   */
  constructor(
    private readonly what: string,
    private readonly load: () => Promise<T>,
  ) {}

  /** The module: loaded by the first call, the same one for every call after. */
  get(): Promise<T> {
    this.loading ??= this.load().catch((error: unknown) => {
      this.loading = undefined;
      const reason = error instanceof Error ? error.message : String(error);
      throw new AppError('INTERNAL', `Could not load ${this.what}: ${reason}`, {
        cause: error,
        retryable: false,
      });
    });
    return this.loading;
  }
}
