// Reading Playwright's JSON report, and preparing plain playwright scripts for the test runner.

import { describe, it, expect } from 'vitest';
import { testsOf, firstError } from '../../src/checks/pw/report.js';
import { usesTestRunner, wrapPlainScript } from '../../src/checks/pw/suite.js';

const report = {
  suites: [
    {
      title: 'shop.spec.ts',
      file: 'shop.spec.ts',
      specs: [
        {
          title: 'home',
          file: 'shop.spec.ts',
          tests: [
            {
              projectName: 'chromium',
              results: [{ status: 'passed', duration: 120, steps: [{ title: 'open', duration: 80 }], attachments: [] }],
            },
          ],
        },
      ],
      suites: [
        {
          title: 'checkout',
          file: 'shop.spec.ts',
          specs: [
            {
              title: 'pays',
              file: 'shop.spec.ts',
              tests: [
                {
                  projectName: 'chromium',
                  results: [
                    { status: 'failed', duration: 50, errors: [{ message: 'first try' }] },
                    {
                      status: 'failed',
                      duration: 70,
                      errors: [{ message: '\u001b[31mError: expect(received).toBe(expected)\u001b[39m\n\nExpected: 2' }],
                      steps: [{ title: 'pay', duration: 60, error: { message: 'boom' } }],
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    },
  ],
} as const;

describe('Playwright JSON report', () => {
  it('lists every test with its suite path, last attempt, steps and plain-text errors', () => {
    const tests = testsOf(report as never);
    expect(tests.map((t) => [t.title, t.status, t.duration])).toEqual([
      ['home', 'passed', 120],
      ['checkout › pays', 'failed', 70],
    ]);
    expect(tests[1].errors[0]).toBe('Error: expect(received).toBe(expected)\n\nExpected: 2');
    expect(tests[1].steps).toEqual([{ title: 'pay', duration: 60, error: 'boom' }]);
    expect(tests[0].steps).toEqual([{ title: 'open', duration: 80, error: null }]);
  });
  it('names the first failing test and the first line of its error', () => {
    expect(firstError(testsOf(report as never), report as never)).toBe('checkout › pays: Error: expect(received).toBe(expected)');
    expect(firstError([], { errors: [{ message: 'Error: No tests found\nmore' }] })).toBe('Error: No tests found');
    expect(firstError(testsOf({ suites: [report.suites[0]].map((s) => ({ ...s, suites: [] })) } as never), {})).toBeNull();
  });
});

describe('plain playwright scripts', () => {
  it('are told apart from test-runner scripts', () => {
    expect(usesTestRunner("import { test } from '@playwright/test'")).toBe(true);
    expect(usesTestRunner('const { test } = require("@playwright/test")')).toBe(true);
    expect(usesTestRunner("const { chromium } = require('playwright')")).toBe(false);
  });
  it('become one async test, imports kept at the top so top-level await works', () => {
    const out = wrapPlainScript("import { chromium } from 'playwright';\nconst b = await chromium.launch();\nawait b.close();");
    const lines = out.split('\n');
    expect(lines[0]).toBe("import { chromium } from 'playwright';");
    expect(out).toContain(
      "__outpostTest('script', async () => {\ntry {\n\nconst b = await chromium.launch();\nawait b.close();\n} finally {",
    );
  });
});
