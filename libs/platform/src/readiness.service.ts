import {
  Inject,
  Injectable,
  type OnApplicationShutdown,
  type BeforeApplicationShutdown,
} from '@nestjs/common';
import { RUNTIME } from './tokens.js';
import type { PlatformRuntime } from './runtime.js';

export interface ReadinessReport {
  status: 'ready' | 'unready';
  service: string;
  mode: PlatformRuntime['mode'];
  /** `ok`, or what the probe failed with. */
  checks: Record<'bus' | 'database', string>;
}

async function probe(check: () => Promise<void>): Promise<string> {
  try {
    await check();
    return 'ok';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Answers readiness from the bus and the database; owns closing them at shutdown. */
@Injectable()
export class ReadinessService implements BeforeApplicationShutdown, OnApplicationShutdown {
  private draining = false;

  constructor(@Inject(RUNTIME) private readonly runtime: PlatformRuntime) {}

  async check(): Promise<ReadinessReport> {
    const [bus, database] = await Promise.all([
      probe(() => this.runtime.bus.ping()),
      probe(() => this.runtime.database.ping()),
    ]);
    const ok = !this.draining && bus === 'ok' && database === 'ok';
    return {
      status: ok ? 'ready' : 'unready',
      service: this.runtime.name,
      mode: this.runtime.mode,
      checks: { bus, database },
    };
  }

  beforeApplicationShutdown(): void {
    this.draining = true;
  }

  /** Runs after Nest closed the HTTP server and drained the bus transport's handlers. */
  async onApplicationShutdown(): Promise<void> {
    await this.runtime.close();
  }
}
