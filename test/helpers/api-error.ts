// The spec's error body, as every e2e test checks a refusal.

import { expect } from 'vitest';

/** The response has `status` and the error body {statusCode, error, message, attributes} saying `message`. */
export function expectError(res: { status: number; body: any }, status: number, message: RegExp) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ statusCode: status, message: expect.stringMatching(message) });
}
