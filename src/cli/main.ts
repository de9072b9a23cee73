#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError } from '../config.js';
import { IMPORT_HELP, SERVE_HELP, START_HELP, TOKENS_HELP } from './help.js';
import { UsageError } from './usage.js';

const HELP = `foodlookup — food nutrition lookup service (JSON /v1 and SOAP 1.2)

Usage: foodlookup <command> [options]

Commands:
  serve     run the JSON interface, the SOAP interface and the WSDL on one port
  import    load data into the catalogue (formats: catalog, usda-sr, off)
  start     first-run path of 'npm start': build the database from the bundled USDA
            data when it does not exist, then serve
  tokens    manage access tokens (create, list, revoke)

Run 'foodlookup <command> --help' for a command's options.
`;

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
  synonyms: { type: 'string' },
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

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(HELP);
    return name === undefined ? 2 : 0;
  }
  const command = commands[name];
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
    if (error instanceof UsageError || error instanceof ConfigError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`foodlookup ${name}: ${(error as Error).message}\n\n${command.help}`);
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
