/** What bench/run hands its load generators (bench/load, bench/latency), and what they print back. */
export interface LoadSpec {
  readonly url: string;
  /** Requests cycle through these paths in order (a cold scenario lists no path twice). */
  readonly paths: readonly string[];
  readonly connections: number;
  readonly seconds: number;
  readonly headers?: Record<string, string>;
  readonly method?: 'GET' | 'POST';
  /** POST bodies, one per path (SOAP scenarios). */
  readonly bodies?: readonly string[];
}

export interface LoadResult {
  readonly requests: number;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly errors: number;
  readonly non2xx: number;
}

/** The spec comes on stdin: path lists are too long for a command-line argument. */
export async function readSpec(): Promise<LoadSpec> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as LoadSpec;
}
