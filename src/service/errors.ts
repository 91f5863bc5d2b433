import { STATUS_CODES } from 'node:http';

/** The one error type of the API; serialised as the spec's {statusCode, error, message, attributes}. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly attributes: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export function errorBody(statusCode: number, message: string, attributes: Record<string, unknown> = {}) {
  return { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message, attributes };
}

export const notFound = (what: string, id: string | number) => new ApiError(404, `${what} ${id} not found`, { id: String(id) });
export const badRequest = (field: string, message: string, rule = 'invalid') => new ApiError(400, `${field}: ${message}`, { field, rule });

/** Too many failed authentications from one address; the error handler sends Retry-After. */
export const tooManyFailures = (retryAfterSeconds: number) =>
  new ApiError(429, `Too many failed authentications from this address: try again in ${retryAfterSeconds} s`, { retryAfterSeconds });

/** The key sent more requests than its rate allows; the error handler sends Retry-After. */
export const tooManyRequests = (perSecond: number, retryAfterSeconds: number) =>
  new ApiError(
    429,
    `Too many requests with this key: at most ${perSecond} a second on average (OUTPOST_API_RATE_LIMIT_PER_SECOND); try again in ${retryAfterSeconds} s`,
    { retryAfterSeconds },
  );

/** Runs an authentication, counting its failure (a 401) against the caller's address. */
export async function countingFailures<T>(
  failures: { retryAfter(a: string): number; failed(a: string): void },
  address: string,
  auth: () => Promise<T>,
): Promise<T> {
  const wait = failures.retryAfter(address);
  if (wait > 0) throw tooManyFailures(wait);
  try {
    return await auth();
  } catch (err) {
    if (err instanceof ApiError && err.statusCode === 401) failures.failed(address);
    throw err;
  }
}
