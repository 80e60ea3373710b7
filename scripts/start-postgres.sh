#!/usr/bin/env bash
# Starts a throwaway PostgreSQL for Interlock's store tests, listening on 127.0.0.1 only,
# and prints the URL to export. Idempotent: run it again and it reuses what is there.
#
#   bash scripts/start-postgres.sh            # installs Debian's postgresql if missing
#   eval "$(bash scripts/start-postgres.sh | grep '^export')"
#
#   bash scripts/start-postgres.sh stop       # stops it (fast shutdown), if it runs
#
# Settings (environment): INTERLOCK_PG_PORT (54329), INTERLOCK_PG_DIR (/tmp/interlock-postgres-<port>).
# When this call started the server (it was not running), it also prints
# `export INTERLOCK_PG_STARTED=1`: a script that must leave nothing running (.ci/run) stops it
# at its end, and leaves alone a server that was there before it.
set -euo pipefail

port="${INTERLOCK_PG_PORT:-54329}"
base="${INTERLOCK_PG_DIR:-/tmp/interlock-postgres-${port}}"
data="${base}/data"
role=interlock
password=interlock
database=interlock

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

find_bin_dir() {
  find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -type d -name bin 2>/dev/null | sort -V | tail -n 1
}

bin_dir="$(find_bin_dir)"

# initdb and postgres refuse to run as root: run them as the postgres user then.
if [ "$(id -u)" -eq 0 ]; then
  owner=postgres
  as_owner() { runuser -u postgres -- "$@"; }
else
  owner="$(id -un)"
  as_owner() { "$@"; }
fi

if [ "${1:-}" = stop ]; then
  if [ -n "${bin_dir}" ] && [ -s "${data}/PG_VERSION" ] && as_owner "${bin_dir}/pg_ctl" -D "${data}" status >/dev/null 2>&1; then
    as_owner "${bin_dir}/pg_ctl" -D "${data}" -w -m fast stop >&2
  fi
  exit 0
fi

if [ -z "${bin_dir}" ] || [ ! -x "${bin_dir}/initdb" ]; then
  echo "start-postgres: installing Debian's postgresql…" >&2
  as_root apt-get update >&2
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y postgresql >&2
  bin_dir="$(find_bin_dir)"
fi

mkdir -p "${base}"
chown "${owner}" "${base}"
chmod 700 "${base}"

if [ ! -s "${data}/PG_VERSION" ]; then
  echo "start-postgres: creating a cluster in ${data}…" >&2
  as_owner "${bin_dir}/initdb" -D "${data}" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
    --encoding=UTF8 --locale=C.UTF-8 >&2
fi

started=0
if ! as_owner "${bin_dir}/pg_ctl" -D "${data}" status >/dev/null 2>&1; then
  echo "start-postgres: starting PostgreSQL on 127.0.0.1:${port}…" >&2
  as_owner "${bin_dir}/pg_ctl" -D "${data}" -l "${base}/postgres.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p ${port} -k ${base}" start >&2
  started=1
fi

psql_admin() {
  as_owner psql -h "${base}" -p "${port}" -U postgres -d postgres -v ON_ERROR_STOP=1 -qtA "$@"
}

if [ "$(psql_admin -c "SELECT 1 FROM pg_roles WHERE rolname = '${role}'")" != "1" ]; then
  psql_admin -c "CREATE ROLE ${role} LOGIN PASSWORD '${password}'" >&2
fi
if [ "$(psql_admin -c "SELECT 1 FROM pg_database WHERE datname = '${database}'")" != "1" ]; then
  psql_admin -c "CREATE DATABASE ${database} OWNER ${role} ENCODING 'UTF8'" >&2
fi

echo "PostgreSQL is ready on 127.0.0.1:${port} (data: ${data}, log: ${base}/postgres.log)." >&2
echo "export INTERLOCK_TEST_POSTGRES_URL=postgres://${role}:${password}@127.0.0.1:${port}/${database}"
# The superuser over the local socket: tests of the store's defaults create databases of their own.
echo "export INTERLOCK_TEST_POSTGRES_ADMIN_URL=postgres://postgres@localhost:${port}/postgres?host=${base}"
if [ "${started}" = 1 ]; then echo "export INTERLOCK_PG_STARTED=1"; fi
