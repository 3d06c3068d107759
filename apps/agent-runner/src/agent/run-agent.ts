import type { createAgent } from 'langchain';

/**
 * What a run's agent is to its stream (the agent factory builds one per run). Its own file so
 * that the graph (agent-graph.ts, loaded with the kit) and the stream (run-stream.ts, which loads
 * the kit) both name it without importing each other: that was an import cycle.
 */
export interface RunAgent {
  agent: ReturnType<typeof createAgent>;
  recursionLimit: number;
  /** The run's opening message as the model sees it: with its authors' standing instructions. */
  openingMessage: (prompt: string) => string;
}
