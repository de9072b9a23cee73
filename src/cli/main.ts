#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError } from '../config.js';
import { readFileSync } from 'node:fs';
import { HELP, IMPORT_HELP, SERVE_HELP, START_HELP, TOKENS_HELP } from './help.js';
import { UsageError } from './usage.js';
import { ownValue } from '../domain/own.js';

interface Command {
  readonly help: string;
  readonly options: NonNullable<Parameters<typeof parseArgs>[0]>['options'];
  readonly run: (values: Record<string, string | boolean | undefined>, positionals: string[]) => Promise<number>;
}

const COMMON = {
  db: { type: 'string' },
  'database-url': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const SERVER = {
  ...COMMON, host: { type: 'string' }, port: { type: 'string' }, 'trust-proxy': { type: 'boolean' }, workers: { type: 'string' },
  'cors-origins': { type: 'string' }, 'metrics-port': { type: 'string' }, 'response-cache-mb': { type: 'string' },
  synonyms: { type: 'string' }, 'row-copy-dir': { type: 'string' },
} as const;

const commands: Record<string, Command> = {
  // Commands load their modules on use: `import` never loads the HTTP server, and so on.
  serve: { help: SERVE_HELP, options: SERVER, run: async (v, p) => (await import('./serve.js')).serveCommand(v, p) },
  start: { help: START_HELP, options: SERVER, run: async (v, p) => (await import('./start.js')).startCommand(v, p) },
  import: {
    help: IMPORT_HELP,
    options: { ...COMMON, region: { type: 'string' }, replace: { type: 'boolean' }, 'skip-invalid': { type: 'boolean' } },
    run: async (v, p) => (await import('./import.js')).importCommand(v, p),
  },
  tokens: {
    help: TOKENS_HELP,
    options: { ...COMMON, name: { type: 'string' }, ips: { type: 'string' }, quota: { type: 'string' }, json: { type: 'boolean' } },
    run: async (v, p) => (await import('./tokens.js')).tokensCommand(v, p),
  },
};

/** node:util parseArgs's error as one short sentence. */
function parseArgsProblem(error: Error): string {
  const option = /'(-[^' ]+)/.exec(error.message)?.[1];
  if (/Unknown option/i.test(error.message)) return `unknown option '${option ?? '?'}'`;
  if (/argument missing/i.test(error.message)) return `option '${option ?? '?'}' needs a value`;
  if (/does not take an argument/i.test(error.message)) return `option '${option ?? '?'}' takes no value`;
  return error.message.split('.')[0] ?? error.message;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(HELP);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    process.stdout.write(`foodlookup ${pkg.version}\n`);
    return 0;
  }
  if (name.startsWith('-')) {
    process.stderr.write(`foodlookup: unknown option '${name}' (see 'foodlookup --help')\n`);
    return 2;
  }
  const command = ownValue(commands, name);
  if (!command) {
    process.stderr.write(`foodlookup: unknown command '${name}'\n\n${HELP}`);
    return 2;
  }
  try {
    const parsed = parseArgs({ args: rest, options: command.options, allowPositionals: true, strict: true });
    const values = parsed.values as Record<string, string | boolean | undefined>;
    const positionals = parsed.positionals;
    if (values['help']) {
      process.stdout.write(command.help);
      return 0;
    }
    return await command.run(values, positionals);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code?.startsWith('ERR_PARSE_ARGS')) {
      // Our own one line, not the parser's advice on positional arguments.
      process.stderr.write(`foodlookup ${name}: ${parseArgsProblem(error as Error)} (see 'foodlookup ${name} --help')\n`);
      return 2;
    }
    if (error instanceof UsageError || error instanceof ConfigError) {
      process.stderr.write(`foodlookup ${name}: ${error.message}\n\n${command.help}`);
      return 2;
    }
    throw error;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== -1) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`foodlookup: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
    // A serving worker's channel to its primary would keep it alive: the primary learns of
    // the failure from the exit.
    if (process.connected) process.disconnect();
  },
);
