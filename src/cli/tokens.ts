import { existsSync } from 'node:fs';
import { loadConfig } from '../config.js';
import { openTokenStore } from '../tokens/open.js';
import { databaseAccess } from '../store/sqlite/file-access.js';
import { restInRollbackMode } from '../store/sqlite/import-journal.js';
import { formatQuota } from '../tokens/quota.js';
import { MAX_CACHE_TTL_MS } from '../tokens/token-authenticator.js';
import { issueToken, revokeToken, TokenInputError } from '../tokens/token-service.js';
import type { TokenInfo, TokenStore } from '../tokens/token-store.js';
import { UsageError } from './usage.js';
import { ownValue } from '../domain/own.js';

type Values = Record<string, string | boolean | undefined>;

const OPTIONS_OF: Readonly<Record<string, readonly string[]>> = {
  create: ['name', 'ips', 'quota', 'json'],
  list: ['json'],
  revoke: [],
};

const COMMON_OPTIONS = new Set(['db', 'database-url', 'help']);

/** `foodlookup tokens create|list|revoke` (contract C5): a thin door over the token service. */
export async function tokensCommand(values: Values, positionals: string[]): Promise<number> {
  const [action, ...args] = positionals;
  if (action === undefined) throw new UsageError('name an action: create, list or revoke');
  const allowed = ownValue(OPTIONS_OF, action);
  if (!allowed) throw new UsageError(`unknown action '${action}' (create, list, revoke)`);
  for (const [option, value] of Object.entries(values)) {
    if (value !== undefined && !COMMON_OPTIONS.has(option) && !allowed.includes(option)) {
      throw new UsageError(`--${option} does not apply to 'tokens ${action}'`);
    }
  }
  if (action === 'revoke' ? args.length !== 1 : args.length !== 0) {
    throw new UsageError(action === 'revoke' ? "'tokens revoke' takes one token id (see 'tokens list')" : `unexpected argument '${args[0]}'`);
  }
  const config = loadConfig(values);
  if (action !== 'create' && !config.databaseUrl && !existsSync(config.dbPath)) {
    process.stderr.write(`foodlookup tokens: no database at ${config.dbPath}\n`);
    return 1;
  }
  const readOnly = config.databaseUrl || action === 'list' ? undefined : databaseAccess(config.dbPath).readOnlyBecause;
  if (readOnly !== undefined) {
    process.stderr.write(`foodlookup tokens: cannot ${action} tokens in ${config.dbPath}: ${readOnly}\n`);
    return 1;
  }
  const store = await openTokenStore(config, { create: action === 'create' });
  try {
    switch (action) {
      case 'create':
        return await create(store, values);
      case 'list':
        return await list(store, values['json'] === true);
      default:
        return await revoke(store, args[0]!);
    }
  } finally {
    await store.close();
    // Ready to be served from a read-only file or folder, where it can be written now.
    if (!config.databaseUrl && databaseAccess(config.dbPath).readOnlyBecause === undefined) restInRollbackMode(config.dbPath);
  }
}

function text(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

async function create(store: TokenStore, values: Values): Promise<number> {
  const name = text(values, 'name');
  const ips = text(values, 'ips');
  const quota = text(values, 'quota');
  let issued;
  try {
    issued = await issueToken(store, {
      ...(name !== undefined ? { name } : {}),
      ...(ips !== undefined ? { ips } : {}),
      ...(quota !== undefined ? { quota } : {}),
    });
  } catch (error) {
    if (error instanceof TokenInputError) throw new UsageError(error.message);
    throw error;
  }
  const { token, secret } = issued;
  if (values['json'] === true) {
    process.stdout.write(`${JSON.stringify({ ...tokenJson(token), token: secret })}\n`);
  } else {
    // The secret alone on stdout (TOKEN=$(foodlookup tokens create)); the rest on stderr.
    process.stdout.write(`${secret}\n`);
    process.stderr.write(
      `created token ${token.id}${token.name ? ` '${token.name}'` : ''}: ips ${token.ips.join(',') || 'any'}, ` +
        `quota ${token.quota ? formatQuota(token.quota) : 'none'}\n` +
        'This is the only time the token is shown: store it now. Use it as the HTTP Basic username ' +
        '(curl -u TOKEN: …) or as the SOAP devkey.\n',
    );
  }
  return 0;
}

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'));

/** The public view of a token for --json: everything but the secret and its hash. */
function tokenJson(token: TokenInfo): Record<string, unknown> {
  return {
    id: token.id,
    name: token.name,
    createdAt: iso(token.createdAt),
    ips: token.ips,
    quota: token.quota ? formatQuota(token.quota) : null,
    revoked: token.revokedAt !== undefined,
    revokedAt: iso(token.revokedAt),
    lastUsedAt: iso(token.lastUsedAt),
  };
}

async function list(store: TokenStore, json: boolean): Promise<number> {
  const tokens = await store.list();
  if (json) {
    process.stdout.write(`${JSON.stringify(tokens.map(tokenJson))}\n`);
    return 0;
  }
  const header = ['ID', 'NAME', 'CREATED', 'IPS', 'QUOTA', 'REVOKED', 'LAST USED'];
  const rows = tokens.map((t) => [
    t.id,
    t.name || '-',
    iso(t.createdAt) ?? '-',
    t.ips.join(',') || 'any',
    t.quota ? formatQuota(t.quota) : 'none',
    iso(t.revokedAt) ?? 'no',
    iso(t.lastUsedAt) ?? 'never',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  process.stdout.write([header, ...rows].map(line).join('\n') + '\n');
  if (tokens.length === 0) process.stderr.write("no tokens yet: create one with 'foodlookup tokens create'\n");
  return 0;
}

async function revoke(store: TokenStore, id: string): Promise<number> {
  const result = await revokeToken(store, id);
  switch (result.outcome) {
    case 'not-found':
      process.stderr.write(`foodlookup tokens: no token with id '${id}' (see 'foodlookup tokens list')\n`);
      return 1;
    case 'already-revoked':
      process.stdout.write(`token ${result.token.id} was already revoked at ${iso(result.token.revokedAt)}\n`);
      return 0;
    case 'revoked':
      process.stdout.write(
        `revoked token ${result.token.id}${result.token.name ? ` '${result.token.name}'` : ''}: ` +
          `every server refuses it within ${MAX_CACHE_TTL_MS / 1000} s\n`,
      );
      return 0;
  }
}
