// Reading Playwright's JSON report into what a result carries. Pure.

export interface ReportAttachment {
  name: string;
  contentType: string;
  path?: string;
  body?: string;
}

export interface TestOutcome {
  title: string;
  file: string;
  projectName: string;
  status: 'passed' | 'failed' | 'timedOut' | 'skipped' | 'interrupted';
  duration: number;
  errors: string[];
  steps: { title: string; duration: number; error: string | null }[];
  attachments: ReportAttachment[];
}

interface RawStep {
  title: string;
  duration: number;
  error?: { message?: string };
  steps?: RawStep[];
}
interface RawResult {
  status: TestOutcome['status'];
  duration: number;
  errors?: { message?: string }[];
  error?: { message?: string };
  steps?: RawStep[];
  attachments?: ReportAttachment[];
}
interface RawSpec {
  title: string;
  file: string;
  tests: { projectName: string; results: RawResult[] }[];
}
interface RawSuite {
  title: string;
  file?: string;
  specs?: RawSpec[];
  suites?: RawSuite[];
}
export interface RawReport {
  suites?: RawSuite[];
  errors?: { message?: string }[];
}

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
export const plain = (s: string | undefined) => (s ?? '').replace(ANSI, '');

/** Every test of the report (its last attempt), with suite titles joined into its title. */
export function testsOf(report: RawReport): TestOutcome[] {
  const out: TestOutcome[] = [];
  const walk = (suite: RawSuite, path: string[]) => {
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests) {
        const r = t.results.at(-1);
        if (!r) continue;
        const errors = (r.errors?.length ? r.errors : r.error ? [r.error] : []).map((e) => plain(e.message));
        out.push({
          title: [...path, spec.title].join(' › '),
          file: spec.file,
          projectName: t.projectName,
          status: r.status,
          duration: r.duration,
          errors,
          // Only the user's own test.step()s: Playwright's internal steps have categories, but
          // the JSON reporter keeps just test.step and hooks at the top level.
          steps: (r.steps ?? []).map((s) => ({ title: s.title, duration: s.duration, error: s.error ? plain(s.error.message) : null })),
          attachments: r.attachments ?? [],
        });
      }
    }
    for (const s of suite.suites ?? []) walk(s, s.title && !s.file?.endsWith(s.title) ? [...path, s.title] : path);
  };
  for (const s of report.suites ?? []) walk(s, []);
  return out;
}

/** The first thing that went wrong, in one line a user can act on. */
export function firstError(tests: TestOutcome[], report: RawReport): string | null {
  const bad = tests.find((t) => t.status === 'failed' || t.status === 'timedOut' || t.status === 'interrupted');
  if (bad) {
    const msg = bad.errors[0]?.split('\n').find((l) => l.trim()) ?? bad.status;
    return `${bad.title}: ${msg.trim()}`;
  }
  const global = report.errors?.[0]?.message;
  if (global)
    return (
      plain(global)
        .split('\n')
        .find((l) => l.trim())
        ?.trim() ?? 'the test run failed'
    );
  return null;
}
