import { RunBundleSession, type Sandbox, type ToolBundle } from '@caravel/sandbox';
import type { CaravelTool } from '@caravel/tools';
import { Logger } from '@nestjs/common';

/**
 * The bundles a runner installs in each run's sandbox, whose read-only copy the sandbox broker
 * binds at `/root/tools` (the embedded host gives both the same {@link RunBundles}).
 */
export class RunToolBundles {
  private readonly log = new Logger('RunToolBundles');

  constructor(readonly bundles: readonly ToolBundle[]) {}

  /** Installs the bundles in the run's sandbox session; null when there are none. */
  async open(sandbox: Sandbox): Promise<RunBundleSession | null> {
    if (this.bundles.length === 0) return null;
    return RunBundleSession.install(sandbox, this.bundles, (message) => this.log.warn(message));
  }
}

/**
 * The run's tools, each running the bundles' state commands after its call (SWE-agent runs them
 * after every step), so the step that made the call records that state; unchanged without bundles.
 */
export function withBundleState(
  tools: CaravelTool[],
  session: RunBundleSession | undefined,
): CaravelTool[] {
  if (session === undefined) return tools;
  return tools.map((tool) => ({
    ...tool,
    invoke: async (raw, call) => {
      const result = await tool.invoke(raw, call);
      if (call?.callId !== undefined) await session.captureAfter(call.callId);
      return result;
    },
  }));
}
