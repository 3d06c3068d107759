import { Module } from '@nestjs/common';

/** Review runs (reviewer agent, findings, publish_review). Boots now; behaviour comes later. */
@Module({})
export class ReviewerModule {}
