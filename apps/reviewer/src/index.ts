export { ReviewerModule } from './reviewer.module.js';
export { reviewerConfigSchema } from './reviewer.config.js';
