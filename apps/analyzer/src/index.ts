export { AnalyzerModule } from './analyzer.module.js';
export {
  analyzerConfigOf,
  analyzerConfigSchema,
  analyzerEnvSchema,
  type AnalyzerConfig,
} from './analyzer.config.js';
