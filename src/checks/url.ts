// URL check: one GET, judged on its status code.

import { describeFailure } from '../domain/assertions.js';
import { assess } from './assess.js';
import { timedRequest, transportOf, responseView, exchangeFailure } from './http.js';
import { syntheticHeaders } from './synthetic.js';
import type { CheckRunner } from './types.js';
import type { UrlRequest } from '../domain/check-types/url.js';

export const runUrl: CheckRunner<UrlRequest> = async (job, ctx) => {
  const req = job.check.request;
  const headers = syntheticHeaders(job);
  const request = { method: 'GET', url: req.url, data: null, headers, params: {} };
  try {
    const res = await timedRequest({
      url: req.url,
      method: 'GET',
      headers,
      transport: transportOf(req, ctx),
      keepBodyBytes: 0,
    });
    const assertions = req.assertions ?? [];
    const outcomes = await assess(assertions, () => res.status);
    const failed = outcomes.find((o) => !o.passed);
    // Without assertions, any answer below 400 is a pass, as a browser would see it.
    const error = failed ? describeFailure(failed) : assertions.length === 0 && res.status >= 400 ? `status code ${res.status}` : null;
    return {
      responseTime: Math.round(res.timingPhases.total),
      error,
      assertions: outcomes,
      detail: {
        apiCheckResult: {
          assertions: outcomes,
          request,
          response: responseView(res, ''),
          tls: res.tls,
          requestError: null,
        },
      },
    };
  } catch (err) {
    return exchangeFailure(err, request, ctx.deadline - job.timeoutMs);
  }
};
