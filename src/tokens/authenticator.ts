/** Rate-limit state of a limited token, sent as X-RateLimit-* headers (contract C5). */
export interface RateLimitInfo {
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the current window resets. */
  readonly resetSeconds: number;
}

export type AuthResult =
  | { readonly ok: true; readonly tokenId: string; readonly rateLimit?: RateLimitInfo }
  | { readonly ok: false; readonly reason: 'unauthorized' }
  | { readonly ok: false; readonly reason: 'forbidden' }
  | { readonly ok: false; readonly reason: 'quota'; readonly rateLimit: RateLimitInfo };

/**
 * Decides whether a token may make a request: one decision for the JSON interface (Basic
 * username) and the SOAP interface (devkey).
 */
export interface Authenticator {
  /** `secret` is undefined when no credential was sent; `clientIp` is the caller's address. */
  authenticate(secret: string | undefined, clientIp: string): Promise<AuthResult>;
}
