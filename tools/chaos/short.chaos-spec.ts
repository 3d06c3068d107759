import { chaosSuite } from './chaos-suite.js';
import { PROFILES } from './profiles.js';

chaosSuite(PROFILES.short);
