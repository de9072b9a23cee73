#!/usr/bin/env bash
# npm run lint: type-aware ESLint over the whole tree (20-45 s on a 2-core machine, most of it
# TypeScript building and querying the program). A run that passes records a digest of every
# file git sees (tracked or not, ignored ones aside) and of ESLint's version; the same tree is
# not linted again. Whole-tree, not ESLint's own --cache: that one is per file, and with
# type-aware rules a change in one file can change another file's findings. Arguments go to
# ESLint and always run it; outside a git checkout it always runs too.
set -euo pipefail
cd "$(dirname "$0")/.."
stamp=node_modules/.cache/foodlookup-lint.sha256
digest=
if [ $# -eq 0 ] && git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  digest=$({ git ls-files -z --cached --others --exclude-standard | xargs -0 -r sha256sum 2>&1 || true; npx eslint --version; } | sha256sum | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$digest" ]; then
    echo "lint: the tree is as at the last clean run ($stamp); nothing to do"
    exit 0
  fi
fi
npx eslint . --max-warnings 0 "$@"
if [ -n "$digest" ]; then mkdir -p "$(dirname "$stamp")" && echo "$digest" > "$stamp"; fi
