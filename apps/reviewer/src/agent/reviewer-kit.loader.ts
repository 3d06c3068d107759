import { LazyImport } from '@caravel/agent';
import { Injectable } from '@nestjs/common';

/** The reviewer's LangChain side ({@link ./reviewer-kit.ts}). */
export type ReviewerKit = typeof import('./reviewer-kit.js');

/**
 * Loads the reviewer's agent and the model providers at the first review instead of at start,
 * once for every review after; a load that failed fails that review with a clear error and is
 * tried again by the next.
 */
@Injectable()
export class ReviewerKitLoader extends LazyImport<ReviewerKit> {
  constructor() {
    super(
      'the reviewer agent (LangChain and the model providers)',
      () => import('./reviewer-kit.js'),
    );
  }
}
