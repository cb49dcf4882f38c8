#!/usr/bin/env bash
# Restores a dump written by backup.sh into a database.
#
#   set -a; . /etc/lunanexa/backup.env; set +a
#   infra/backup/restore.sh /var/backups/lunanexa/lunanexa-20260101T020000Z.dump lunanexa
#
# Before: stop every writer of that database on every host
#   (systemctl stop lunanexa-api lunanexa-gateway lunanexa-worker; for the
#   Temporal databases also temporal-server). The script refuses to run while
#   other sessions are connected to the target database.
# The dump's checksum is verified first. An empty or missing target database is
# restored into directly; a target that already has tables is replaced only
# with LUNANEXA_RESTORE_REPLACE=yes. The restore is one transaction: it either
# completes or leaves the database as it was.
# Roles named in the dump's GRANTs must exist on the target cluster. Connect
# (PGUSER) as the role that should own the restored objects.
# When backup.sh recorded a digest beside the dump (<dump>.digest: registry,
# desired state, audit chain head), the restored database's digest is computed
# the same way and compared: a difference exits 70, and the services must not
# be started on that database.
#
# After: start the same (or newer) release, whose start command runs pending
# migrations; check the audit chain and, if Temporal was restored from a
# different moment than LunaNexa, let Reconcile report the drift before
# re-enabling automation.
set -euo pipefail

digest_sql="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)/libs/persistence/sql/control-plane-digest.sql"

if [[ $# -ne 2 ]]; then
  echo "usage: $0 <dump file> <target database>" >&2
  exit 64
fi
dump="$1"
target="$2"

[[ -f "$dump" ]] || { echo "restore: $dump does not exist" >&2; exit 66; }
if [[ ! -f "$dump.sha256" ]]; then
  echo "restore: $dump.sha256 is missing; refusing to restore an unverified dump" >&2
  exit 65
fi
# The checksum of this file, not of the name recorded inside the .sha256 (a renamed or copied dump would
# otherwise be "verified" by its original).
expected="$(awk 'NR == 1 { print $1 }' "$dump.sha256")"
actual="$(sha256sum -- "$dump" | awk '{ print $1 }')"
if [[ ! "$expected" =~ ^[0-9a-f]{64}$ || "$actual" != "$expected" ]]; then
  echo "restore: $dump does not match $dump.sha256; refusing to restore it" >&2
  exit 65
fi
pg_restore --list "$dump" >/dev/null

# query DATABASE SQL: runs SQL (from stdin, so psql expands :'db' / :"db" safely).
query() {
  PGDATABASE="$1" psql --no-psqlrc --tuples-only --no-align -v ON_ERROR_STOP=1 -v db="$target" <<<"$2"
}
admin_db="${LUNANEXA_RESTORE_ADMIN_DATABASE:-postgres}"

exists="$(query "$admin_db" "SELECT count(*) FROM pg_database WHERE datname = :'db'")"
clean_args=()
if [[ "$exists" == "0" ]]; then
  echo "restore: creating database $target"
  query "$admin_db" 'CREATE DATABASE :"db"' >/dev/null
else
  others="$(query "$admin_db" "SELECT count(*) FROM pg_stat_activity WHERE datname = :'db' AND pid <> pg_backend_pid()")"
  if [[ "$others" != "0" ]]; then
    echo "restore: $others other session(s) are connected to $target; stop its writers first:" >&2
    query "$admin_db" "SELECT DISTINCT '  ' || coalesce(nullif(application_name, ''), '?') || ' from ' || coalesce(client_addr::text, 'local') FROM pg_stat_activity WHERE datname = :'db' AND pid <> pg_backend_pid()" >&2
    exit 75
  fi
  tables="$(query "$target" "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')")"
  if [[ "$tables" != "0" ]]; then
    if [[ "${LUNANEXA_RESTORE_REPLACE:-}" != "yes" ]]; then
      echo "restore: $target already has $tables table(s); set LUNANEXA_RESTORE_REPLACE=yes to replace its contents" >&2
      exit 73
    fi
    echo "restore: replacing the contents of $target"
    clean_args=(--clean --if-exists)
  fi
fi

echo "restore: restoring $dump into $target"
PGDATABASE="$target" pg_restore --dbname="$target" --single-transaction --exit-on-error --no-owner "${clean_args[@]}" "$dump"

if [[ -f "$dump.digest" ]]; then
  restored="$(PGDATABASE="$target" PGOPTIONS="-c TimeZone=UTC" psql --no-psqlrc --quiet --tuples-only --no-align \
    -v ON_ERROR_STOP=1 -f "$digest_sql")"
  IFS='|' read -r registry desired_state audit_events audit_head_hash <<<"$restored"
  printf -v restored_digest 'registry=%s\ndesired_state=%s\naudit_events=%s\naudit_head_hash=%s' \
    "$registry" "$desired_state" "$audit_events" "$audit_head_hash"
  if [[ "$restored_digest" != "$(cat -- "$dump.digest")" ]]; then
    echo "restore: $target does not hold what the backup did; do not start the services on it" >&2
    diff <(cat -- "$dump.digest") <(printf '%s\n' "$restored_digest") | sed 's/^/restore:   /' >&2 || true
    exit 70
  fi
  echo "restore: registry, desired state and audit chain ($audit_events events) match the backup's digest"
else
  echo "restore: no digest was recorded with $dump; its contents were not compared"
fi
echo "restore: done; start the services (migrations run on start) and verify before re-enabling automation"
