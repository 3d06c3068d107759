import { LazyImport } from '@caravel/agent';
import { Injectable } from '@nestjs/common';

/** The analyzer's LangChain side ({@link ./analyzer-kit.ts}). */
export type AnalyzerKit = typeof import('./analyzer-kit.js');

/**
 * Loads the analyzer's agent and the model providers at the first analysis instead of at start,
 * once for every analysis after; a load that failed fails that analysis with a clear error and
 * is tried again by the next.
 */
@Injectable()
export class AnalyzerKitLoader extends LazyImport<AnalyzerKit> {
  constructor() {
    super(
      'the analyzer agent (LangChain and the model providers)',
      () => import('./analyzer-kit.js'),
    );
  }
}
