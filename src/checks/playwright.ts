// Playwright checks: a whole suite (files, config, projects, tags) run by the runtime's test runner.
import { runSuite } from './pw/suite.js';
import type { CheckRunner } from './types.js';

export const runPlaywright: CheckRunner = (job, ctx) => runSuite('PLAYWRIGHT', job, ctx);
