export {
  currentLogFields,
  runWithLogFields,
  threadIdOfSubject,
  type LogFields,
} from './log-context.js';
export {
  createLogger,
  REDACTED_KEYS,
  type LogFormat,
  type LoggerOptions,
} from './create-logger.js';
export { CaravelLogger } from './caravel-logger.js';
export { installLogger } from './install-logger.js';
export { prettyLine } from './pretty.js';
export { secretValuesOf } from './secret-values.js';
export { pinoLevelOf } from './levels.js';
