import { LazyImport } from '@caravel/agent';
import { Injectable } from '@nestjs/common';

/** The runner's LangChain side ({@link ./agent-kit.ts}). */
export type AgentKit = typeof import('./agent-kit.js');

/**
 * Loads the coding agent's LangChain side (LangChain, LangGraph and its PostgreSQL checkpointer,
 * the model providers' SDKs, the middleware) at the first run instead of at start, once for every
 * run after; a load that failed fails that run with a clear error and is tried again by the next.
 */
@Injectable()
export class AgentKitLoader extends LazyImport<AgentKit> {
  constructor() {
    super('the coding agent (LangChain and the model providers)', () => import('./agent-kit.js'));
  }
}
