import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationShutdown,
  type BeforeApplicationShutdown,
} from '@nestjs/common';
import { ReadinessChecks, type CheckAnswer } from './readiness-checks.js';
import { RUNTIME } from './tokens.js';
import type { PlatformRuntime } from './runtime.js';

const log = new Logger('Readiness');

export interface ReadinessReport {
  status: 'ready' | 'unready';
  service: string;
  mode: PlatformRuntime['mode'];
  /** `ok` or `failed`; why a check failed is logged, never answered (`ReadinessChecks`). */
  checks: Record<'bus' | 'database', CheckAnswer>;
}

/** Answers readiness from the bus and the database; owns closing them at shutdown. */
@Injectable()
export class ReadinessService implements BeforeApplicationShutdown, OnApplicationShutdown {
  private draining = false;
  private readonly checks = new ReadinessChecks<'bus' | 'database'>((line) => log.warn(line));

  constructor(@Inject(RUNTIME) private readonly runtime: PlatformRuntime) {}

  async check(): Promise<ReadinessReport> {
    const checks = await this.checks.run({
      bus: () => this.runtime.bus.ping(),
      database: () => this.runtime.database.ping(),
    });
    const ok = !this.draining && checks.bus === 'ok' && checks.database === 'ok';
    return {
      status: ok ? 'ready' : 'unready',
      service: this.runtime.name,
      mode: this.runtime.mode,
      checks,
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
