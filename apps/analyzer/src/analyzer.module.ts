import { Module } from '@nestjs/common';

/** Review-style learning (bootstrap + continual). Boots now; behaviour comes later. */
@Module({})
export class AnalyzerModule {}
