export { AnalyzerModule } from './analyzer.module.js';
export { analyzerConfigSchema } from './analyzer.config.js';
