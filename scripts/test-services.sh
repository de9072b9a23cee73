#!/usr/bin/env bash
# Makes sure what the test suite talks to is there: the real SOAP clients (zeep, PHP
# SoapClient), Debian's chromium for the browser tests (driven by playwright-core, which never
# downloads a browser of its own), a Redis server on 127.0.0.1:6379 and a PostgreSQL server (the
# one on 127.0.0.1:5432 when it answers, else a private cluster: see the end of this file, whose
# URL is written to $FOODLOOKUP_PG_DIR/url, /tmp/foodlookup-pg/url by default, for
# test/helpers/postgres.ts). Installs Debian packages when run as
# root with apt-get available; otherwise says what is missing and the tests that need it
# skip with that reason. Safe to run again: it does nothing when all is in place.
set -u

missing=()
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import zeep' >/dev/null 2>&1 || missing+=(python3-zeep)
if ! command -v php >/dev/null 2>&1; then
  missing+=(php-cli php-soap)
elif ! php -m 2>/dev/null | grep -qi '^soap$'; then
  missing+=(php-soap)
fi
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
[ -x /usr/bin/chromium ] || missing+=(chromium)
pg_bin_dir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
pg_answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# The machine's PostgreSQL is enough; without one, a PostgreSQL 15+ of our own is needed.
pg_answers 5432 || [ -n "$(pg_bin_dir)" ] || missing+=(postgresql)

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "test-services: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    (apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}") >/tmp/foodlookup-apt.log 2>&1 \
      || echo "test-services: could not install ${missing[*]} (see /tmp/foodlookup-apt.log); the tests that need them will skip"
  else
    echo "test-services: missing ${missing[*]} and cannot install them here (needs root and apt-get); the tests that need them will skip"
  fi
fi

if command -v redis-server >/dev/null 2>&1; then
  if ! (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null; then
    echo "test-services: starting redis-server on 127.0.0.1:6379"
    mkdir -p /tmp/foodlookup-redis
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save '' --appendonly no \
      --dir /tmp/foodlookup-redis --logfile /tmp/foodlookup-redis/redis.log || echo "test-services: redis-server did not start"
    for _ in 1 2 3 4 5 6 7 8 9 10; do (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null && break; sleep 0.3; done
  fi
fi

# PostgreSQL. Each test makes its own database on it (test/helpers/postgres.ts) and drops it.
pg_dir="${FOODLOOKUP_PG_DIR:-/tmp/foodlookup-pg}"
mkdir -p "$pg_dir"
pg_url_file="$pg_dir/url"
pg_usable() { # URL: true when it takes a query (psql when installed, else the port answering)
  if command -v psql >/dev/null 2>&1; then
    PGCONNECT_TIMEOUT=3 psql "$1" -Atqc 'select 1' >/dev/null 2>&1
  else
    local port; port="$(sed -E 's#.*:([0-9]+)/.*#\1#' <<<"$1")"; pg_answers "$port"
  fi
}
# FOODLOOKUP_PG_PRIVATE=1 asks for a private cluster even when the machine has one (a test that
# stops its PostgreSQL, or checking this script).
if [ "${FOODLOOKUP_PG_PRIVATE:-}" != 1 ] && pg_answers 5432 && pg_usable "postgres://postgres@127.0.0.1:5432/postgres"; then
  echo "postgres://postgres@127.0.0.1:5432/postgres" >"$pg_url_file"
elif [ -s "$pg_url_file" ] && pg_usable "$(cat "$pg_url_file")"; then
  : # the private cluster of an earlier run still answers
else
  rm -f "$pg_url_file"
  bin="$(pg_bin_dir)"
  if [ -z "$bin" ]; then
    echo "test-services: no PostgreSQL (nothing on 127.0.0.1:5432 and none installed); the PostgreSQL tests will skip (and fail under CI=true)"
  else
    # initdb and postgres refuse to run as root: the cluster belongs to an unprivileged user.
    run_as=()
    if [ "$(id -u)" = 0 ]; then
      pg_user=postgres; id -u postgres >/dev/null 2>&1 || pg_user=nobody
      run_as=(runuser -u "$pg_user" --)
      chown "$pg_user" "$pg_dir"
    fi
    if [ -s "$pg_dir/port" ] && ! pg_answers "$(cat "$pg_dir/port")"; then
      port="$(cat "$pg_dir/port")"
    else
      port=""
      for candidate in $(seq 54320 54399); do pg_answers "$candidate" || { port="$candidate"; break; }; done
    fi
    if [ ! -s "$pg_dir/data/PG_VERSION" ]; then
      rm -rf "$pg_dir/data"
      "${run_as[@]}" "$bin/initdb" -D "$pg_dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$pg_dir/initdb.log" 2>&1 \
        || echo "test-services: initdb failed (see $pg_dir/initdb.log)"
    fi
    echo "$port" >"$pg_dir/port"
    echo "test-services: starting a private PostgreSQL on 127.0.0.1:$port ($pg_dir/data)"
    # Test data is thrown away: durability settings off make the suite faster.
    if "${run_as[@]}" "$bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/postgres.log" -w -t 30 start \
      -o "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories=$pg_dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
      >/dev/null 2>&1; then
      echo "postgres://postgres@127.0.0.1:$port/postgres" >"$pg_url_file"
    else
      echo "test-services: PostgreSQL did not start (see $pg_dir/postgres.log); the PostgreSQL tests will skip (and fail under CI=true)"
    fi
  fi
fi
exit 0
