// Multi-step checks: @playwright/test scripts built from test.step()s, mostly API calls through the request fixture.
import { runSuite } from './pw/suite.js';
import type { CheckRunner } from './types.js';

export const runMultiStep: CheckRunner = (job, ctx) => runSuite('MULTI_STEP', job, ctx);
