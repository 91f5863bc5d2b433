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
