// Browser checks: a @playwright/test or plain playwright script in the agent's shared Chromium.
import { runSuite } from './pw/suite.js';
import type { CheckRunner } from './types.js';

export const runBrowser: CheckRunner = (job, ctx) => runSuite('BROWSER', job, ctx);
