#!/usr/bin/env bash
# Creates (first time) and upgrades (every Temporal server upgrade) the two
# Temporal databases on PostgreSQL with temporal-sql-tool, which ships in the
# Temporal server release archive next to temporal-server.
#
#   sudo -u temporal env $(cat /etc/temporal/temporal.env | xargs) infra/temporal/setup-schema.sh
#   or: set -a; . /etc/temporal/temporal.env; set +a; infra/temporal/setup-schema.sh
#
# Idempotent: an existing database is kept, the schema is brought to the
# latest version this temporal-sql-tool embeds (a no-op when already there).
# Run it with the new tool BEFORE starting a new temporal-server version.
#
# The role in TEMPORAL_SQL_USER must own both databases; creating them needs
# CREATEDB (otherwise create them as a superuser first, see README.md).
set -euo pipefail

: "${TEMPORAL_SQL_HOST:?set TEMPORAL_SQL_HOST (see temporal.env.example)}"
: "${TEMPORAL_SQL_PASSWORD:?set TEMPORAL_SQL_PASSWORD}"
TEMPORAL_SQL_PORT="${TEMPORAL_SQL_PORT:-5432}"
TEMPORAL_SQL_USER="${TEMPORAL_SQL_USER:-temporal}"
TEMPORAL_SQL_DATABASE="${TEMPORAL_SQL_DATABASE:-temporal}"
TEMPORAL_SQL_VISIBILITY_DATABASE="${TEMPORAL_SQL_VISIBILITY_DATABASE:-temporal_visibility}"
SQL_TOOL="${TEMPORAL_SQL_TOOL:-temporal-sql-tool}"

# TLS as in config/production.yaml: verify the server against the internal CA.
# TEMPORAL_SQL_TLS=false only for a PostgreSQL on this host over loopback.
tls_args=()
if [[ "${TEMPORAL_SQL_TLS:-true}" == "true" ]]; then
  tls_args=(--tls --tls-ca-file "${TEMPORAL_SQL_TLS_CA_FILE:-/etc/temporal/tls/postgres-ca.pem}")
fi

# Passed through the environment, not argv, so the password stays out of `ps`.
export SQL_PASSWORD="$TEMPORAL_SQL_PASSWORD"

sql_tool() {
  local database="$1"
  shift
  "$SQL_TOOL" --plugin postgres12 --endpoint "$TEMPORAL_SQL_HOST" --port "$TEMPORAL_SQL_PORT" \
    --user "$TEMPORAL_SQL_USER" --database "$database" "${tls_args[@]}" "$@"
}

setup_database() {
  local database="$1" schema="$2"
  echo "== $database"
  # Succeeds when the database exists already. Without CREATEDB it fails; that
  # is fine when a superuser created the database (the next step says if not).
  if ! sql_tool "$database" create-database; then
    echo "could not create $database; continuing in case it exists already" >&2
  fi
  # Creates the schema_version bookkeeping tables (IF NOT EXISTS) and leaves a
  # newer recorded version alone: safe to repeat.
  sql_tool "$database" setup-schema --version 0.0
  # Applies every versioned change newer than the recorded version, if any.
  sql_tool "$database" update-schema --schema-name "$schema"
}

setup_database "$TEMPORAL_SQL_DATABASE" postgresql/v12/temporal
setup_database "$TEMPORAL_SQL_VISIBILITY_DATABASE" postgresql/v12/visibility
echo "Temporal schema is up to date in $TEMPORAL_SQL_DATABASE and $TEMPORAL_SQL_VISIBILITY_DATABASE"
