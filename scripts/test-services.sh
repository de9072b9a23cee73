#!/usr/bin/env bash
# Makes sure what the test suite talks to is there: the real SOAP clients (zeep, PHP
# SoapClient), Debian's chromium for the browser tests (driven by playwright-core, which never
# downloads a browser of its own) and a Redis server on 127.0.0.1:6379. Installs Debian packages when run as
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
exit 0
