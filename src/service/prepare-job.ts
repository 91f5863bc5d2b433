// What a job gets at the moment it is handed out: the account's variables and the scripts of
// its snippets, as they are then (not as they were when the run came due).

import type { Job } from '../domain/run.js';
import { UPTIME_CHECK_TYPES } from '../domain/check-types/index.js';
import type { VariablesCache } from './variables-cache.js';
import type { SnippetsCache } from './snippets-cache.js';

const join = (...parts: (string | null | undefined)[]) => parts.filter((p): p is string => !!p).join(';\n') || null;

export function jobPreparer(variables: VariablesCache, snippets: SnippetsCache) {
  return (job: Job, accountId: string): Job => {
    if (UPTIME_CHECK_TYPES.has(job.checkType) && !job.check.environmentVariables) return job;
    const c = job.check;
    const vars = [...variables.of(accountId), ...(c.environmentVariables ?? [])];
    const g = c.groupScripts;
    const setupScript = join(
      snippets.script(accountId, g?.setupSnippetId),
      g?.localSetupScript,
      snippets.script(accountId, c.setupSnippetId),
      c.localSetupScript,
    );
    const tearDownScript = join(
      snippets.script(accountId, c.tearDownSnippetId),
      c.localTearDownScript,
      snippets.script(accountId, g?.tearDownSnippetId),
      g?.localTearDownScript,
    );
    return {
      ...job,
      ...(vars.length ? { variables: vars } : {}),
      ...(setupScript ? { setupScript } : {}),
      ...(tearDownScript ? { tearDownScript } : {}),
    };
  };
}
