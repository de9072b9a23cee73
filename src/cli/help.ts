/** The help text of each command, kept apart so that --help loads nothing else. */

export const HELP = `foodlookup — food nutrition lookup service (JSON /v1 and SOAP 1.2)

Usage: foodlookup <command> [options]
       foodlookup --version

Commands:
  serve     run the JSON interface, the SOAP interface and the WSDL on one port
            (also /docs, the API reference, and /, the food explorer)
  import    load data into the catalogue
            (formats: catalog, usda-sr, off, fdc, ausnut, afcd; see 'foodlookup import --help')
  start     first-run path of 'npm start': build the database from the bundled USDA
            data when it does not exist, then serve
  tokens    manage access tokens (create, list, revoke)

Run 'foodlookup <command> --help' for a command's options.
`;

export const SERVE_HELP = `Usage: foodlookup serve [--db PATH] [--database-url URL] [--host H] [--port N] [--trust-proxy]
                       [--workers N] [--synonyms PATH[,PATH…]] [--row-copy-dir DIR]

Runs the JSON interface (/v1), the SOAP interface (POST /soap/1.2) and the WSDL
(GET /soap/1.2?wsdl) on one port.

Options (each with its environment variable):
  --db PATH            SQLite file (FOODLOOKUP_DB, default ./data/foodlookup.db)
  --database-url URL   PostgreSQL instead of SQLite (DATABASE_URL)
  --host H             address to listen on (HOST, default 127.0.0.1)
  --port N             port (PORT, default 8080; 0 picks a free one)
  --trust-proxy        honour X-Forwarded-For/-Host/-Proto (FOODLOOKUP_TRUST_PROXY)
  --workers N          server processes sharing the port (FOODLOOKUP_WORKERS; default one
                       per CPU with REDIS_URL, else 1: without Redis each process would
                       count quotas on its own); a small primary process forks them,
                       with V8 flags for a server (kept where NODE_OPTIONS sets its own)
  --cors-origins LIST  let browser apps on these origins call the API: '*' or comma-separated
                       origins such as https://app.example.com (FOODLOOKUP_CORS_ORIGINS; off)
  --metrics-port N     serve Prometheus metrics at http://HOST:N/metrics, every worker's
                       together (FOODLOOKUP_METRICS_PORT; off)
  --response-cache-mb N  MiB of answers each process keeps for requests that repeat
                       (FOODLOOKUP_RESPONSE_CACHE_MB, default 16; 0 keeps none)
  --synonyms PATHS     the food synonym lists searches use, comma-separated; 'default' is the
                       one that ships (FOODLOOKUP_SYNONYMS, default 'default'; docs/search.md):
                       '--synonyms default,mine.txt' extends it, '--synonyms mine.txt' replaces it
  --row-copy-dir DIR   with --database-url: copy each catalogue version's food rows to this
                       folder on the local disk, so that pages need no round trip to
                       PostgreSQL (FOODLOOKUP_ROW_COPY_DIR; off; docs/deploy.md)
Also: FOODLOOKUP_TOKENS (comma-separated tokens accepted without limits), REDIS_URL, LOG_LEVEL.
`;

export const IMPORT_HELP = `Usage: foodlookup import <format> <path...> [--db PATH] [--database-url URL]
                        [--region au|us] [--replace] [--skip-invalid]

Loads data into the catalogue in one transaction: when anything fails, the catalogue is
exactly as before, and the error names the file, the line (or record) and the reason.

Formats:
  catalog    our own format: FILE.json {"brands":[…],"categories":[…],"tags":[…],"foods":[…]}
             or FILE.jsonl, one {"kind":"brand"|"category"|"tag"|"food",…} per line (streamed)
  usda-sr    a folder of USDA Standard Reference ASCII files (FOOD_DES, ABBREV or
             NUT_DATA+NUTR_DEF, WEIGHT, optional FD_GROUP; plain or .gz); region us by default
  off        Open Food Facts: the CSV export (.csv, tab-separated) or the JSONL dump (.jsonl),
             plain or .gz, streamed; or product files saved from its API (api-product-….json);
             regions from countries_tags (others are skipped)
  fdc        folders of unzipped USDA FoodData Central CSV downloads (Foundation, SR Legacy,
             Branded: food, food_nutrient, nutrient, food_portion, measure_unit, food_category,
             branded_food; plain or .gz); staged on disk (FOODLOOKUP_TMPDIR), so memory stays
             flat; branded foods take their region from market_country, the others us by default
  ausnut     FSANZ AUSNUT 2011-13 AHS Food Nutrient Database saved as CSV (UTF-8), streamed;
             region au by default
  afcd       FSANZ Australian Food Composition Database nutrient file: the .xlsx, or CSVs of
             its per-100 g and per-100 mL sheets (give both in one command); region au by default

Options:
  --region au|us     region for sources that have none of their own
  --replace          empty the catalogue first (same transaction): records not listed are removed
  --skip-invalid     import the valid records and report each skipped one
  --db PATH          SQLite file (FOODLOOKUP_DB, default ./data/foodlookup.db)

Progress goes to stderr: redrawn on a terminal, a line every 5 s otherwise (logs, CI).
`;

export const START_HELP = `Usage: foodlookup start [serve options]

What 'npm start' runs: when the database does not exist yet, builds it from the bundled
USDA SR21 data (region us, 7,413 foods) and prints a development token; then serves.
Options as 'foodlookup serve --help'.
`;

export const TOKENS_HELP = `Usage: foodlookup tokens create [--name N] [--ips CIDR,…] [--quota N/minute|N/hour|N/day] [--json]
       foodlookup tokens list [--json]
       foodlookup tokens revoke ID
       (each also takes --db PATH / --database-url URL)

Access tokens, stored in the catalogue's database as SHA-256 hashes (never in clear).

  create   issues a token and prints it once (stdout; --json prints all its fields)
             --name N         a label for operators
             --ips CIDR,…     accept it only from these addresses or blocks (IPv4, IPv6);
                              behind a load balancer, serve with --trust-proxy
             --quota N/unit   at most N requests per minute, hour or day
  list     every token: id, name, created, ips, quota, revoked, last used; never the secret
  revoke   refuses the token with this id; every server stops accepting it within 5 s

Tokens in FOODLOOKUP_TOKENS are accepted as well, from anywhere and without quota.
See docs/tokens.md.
`;
