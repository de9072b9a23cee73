/**
 * The catalogue of API errors (contract C3): each has its HTTP status, message and details.
 * One error handler turns them into `{code, message, details}`; SOAP maps them to faults.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Absent only for 401. */
    readonly details?: string,
    /** Extra response headers (WWW-Authenticate, Allow, Retry-After). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }

  body(): { code: number; message: string; details?: string } {
    return this.details === undefined
      ? { code: this.status, message: this.message }
      : { code: this.status, message: this.message, details: this.details };
  }
}

export const errors = {
  invalidParameter: (name: string, rule: string) => new ApiError(400, 'Invalid parameter', `Parameter '${name}': ${rule}`),
  unknownFieldsPath: (path: string) => new ApiError(400, "Unknown path in 'fields'", `Path: '${path}'`),
  invalidFields: (where: string) => new ApiError(400, "Invalid 'fields'", where),
  unauthorized: () => new ApiError(401, 'Not Authorized', undefined, { 'WWW-Authenticate': 'Basic realm="foodlookup"' }),
  forbidden: () => new ApiError(403, 'Forbidden', 'Address not allowed for this token'),
  recordNotFound: (kind: 'Food' | 'Brand' | 'Category' | 'Tag', id: string) => new ApiError(404, `${kind} not found`, `id: ${id}`),
  routeNotFound: (path: string) => new ApiError(404, 'Not Found', `Path: ${path}`),
  methodNotAllowed: (method: string, allow: string) => new ApiError(405, 'Method Not Allowed', `Method: ${method}`, { Allow: allow }),
  quotaExceeded: (details: string, retryAfterSeconds: number) =>
    new ApiError(429, 'Quota exceeded', details, { 'Retry-After': String(retryAfterSeconds) }),
  uriTooLong: (limit: number) => new ApiError(414, 'URI Too Long', `The request URI is longer than ${limit} bytes`),
  /** A request the HTTP layer cannot take as it is (no Host, a malformed head, a bad URL). */
  badRequest: (details: string) => new ApiError(400, 'Bad Request', details),
  requestTimeout: () => new ApiError(408, 'Request Timeout', 'The request did not arrive in time'),
  expectationFailed: () => new ApiError(417, 'Expectation Failed', "Only 'Expect: 100-continue' is supported"),
  headersTooLarge: (limit: number) => new ApiError(431, 'Request Header Fields Too Large', `The request head is longer than ${limit} bytes`),
  internal: (requestId: string) => new ApiError(500, 'Internal Server Error', `Request id: ${requestId}`),
  /** The store (PostgreSQL) cannot be reached: a retry after the pause may well succeed. */
  storeUnavailable: (retryAfterSeconds: number) =>
    new ApiError(503, 'Service Unavailable', `The catalogue store does not answer; retry in ${retryAfterSeconds} s`, { 'Retry-After': String(retryAfterSeconds) }),
} as const;
