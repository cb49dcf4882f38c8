#!/usr/bin/env bash
# Logical backup (pg_dump, custom format) of the LunaNexa database and,
# optionally, of Temporal's two databases. Run nightly by
# infra/systemd/lunanexa-backup.timer, or by hand:
#
#   set -a; . /etc/lunanexa/backup.env; set +a; infra/backup/backup.sh
#
# Connection: the standard libpq variables (PGHOST, PGPORT, PGUSER,
# PGPASSWORD or PGPASSFILE, PGSSLMODE, PGSSLROOTCERT), never a URL on the
# command line where `ps` would show the password. A role with
# pg_read_all_data can dump every database listed.
#
#   LUNANEXA_BACKUP_DATABASES   databases to dump (default: lunanexa); add
#                               "temporal temporal_visibility" for Temporal
#   LUNANEXA_BACKUP_DIR         where dumps go (default /var/backups/lunanexa)
#   LUNANEXA_BACKUP_KEEP_DAYS   delete dumps older than this (default 14)
#
# Each dump is written under a temporary name, checked with `pg_restore
# --list`, then renamed and given a .sha256 file; a failed run leaves no
# half-written dump behind. A LunaNexa control-plane database (one with the
# audit chain) also gets a .digest file: registry, desired state and audit
# chain head (libs/persistence/sql/control-plane-digest.sql), read in the very
# snapshot pg_dump dumps, so restore.sh can show the restored database holds
# what the backup did. Copy the directory off the host (object store,
# another site): a backup on the database host is not a backup.
#
# Temporal: a logical dump restores Temporal to the moment of the dump, and the
# LunaNexa and Temporal dumps are taken seconds apart, not atomically. For
# Temporal prefer physical backups with WAL archiving (pgBackRest or
# pg_basebackup + archive_command) for point-in-time recovery; see
# infra/README.md, "Backup and restore".
set -euo pipefail
umask 077

backup_dir="${LUNANEXA_BACKUP_DIR:-/var/backups/lunanexa}"
keep_days="${LUNANEXA_BACKUP_KEEP_DAYS:-14}"
read -r -a databases <<<"${LUNANEXA_BACKUP_DATABASES:-lunanexa}"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"

digest_sql="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)/libs/persistence/sql/control-plane-digest.sql"

mkdir -p "$backup_dir"
partial=""
partial_digest=""
cleanup() {
  if [[ -n "$partial" ]]; then rm -f -- "$partial"; fi
  if [[ -n "$partial_digest" ]]; then rm -f -- "$partial_digest"; fi
}
trap cleanup EXIT

# dump DATABASE FILE [SNAPSHOT]
dump() {
  PGDATABASE="$1" pg_dump --format=custom --compress=6 --file="$2" ${3:+--snapshot="$3"}
}

# dump_with_digest DATABASE FILE DIGEST_FILE: a read-only repeatable-read
# session exports its snapshot, reads the digest in it and stays open while
# pg_dump dumps that same snapshot.
dump_with_digest() {
  local snapshot row
  coproc HOLDER { PGDATABASE="$1" PGOPTIONS="-c TimeZone=UTC" psql --no-psqlrc --quiet --tuples-only --no-align -v ON_ERROR_STOP=1 2>&1; }
  printf '%s\n' 'BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY;' 'SELECT pg_export_snapshot();' >&"${HOLDER[1]}"
  read -r -t 60 snapshot <&"${HOLDER[0]}" || snapshot=""
  if [[ ! "$snapshot" =~ ^[0-9A-F-]+$ ]]; then
    echo "backup: could not export a snapshot of $1: ${snapshot:-no answer}" >&2
    return 1
  fi
  printf "\\i '%s'\n" "$digest_sql" >&"${HOLDER[1]}"
  read -r -t 600 row <&"${HOLDER[0]}" || row=""
  if [[ ! "$row" =~ ^([0-9a-f]{64})\|([0-9a-f]{64})\|([0-9]+)\|([0-9a-f]{64})?$ ]]; then
    echo "backup: could not read the digest of $1: ${row:-no answer}" >&2
    return 1
  fi
  printf 'registry=%s\ndesired_state=%s\naudit_events=%s\naudit_head_hash=%s\n' \
    "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "${BASH_REMATCH[3]}" "${BASH_REMATCH[4]}" >"$3"
  dump "$1" "$2" "$snapshot"
  printf '%s\n' 'COMMIT;' '\q' >&"${HOLDER[1]}"
  wait "$HOLDER_PID"
}

for database in "${databases[@]}"; do
  final="$backup_dir/${database}-${stamp}.dump"
  partial="$backup_dir/.${database}-${stamp}.dump.partial"
  echo "backup: dumping $database"
  with_digest=""
  control_plane="$(PGDATABASE="$database" psql --no-psqlrc --tuples-only --no-align -v ON_ERROR_STOP=1 \
    -c "SELECT to_regclass('public.audit_events') IS NOT NULL")"
  if [[ "$control_plane" == "t" ]]; then
    partial_digest="$backup_dir/.${database}-${stamp}.dump.digest.partial"
    dump_with_digest "$database" "$partial" "$partial_digest"
    with_digest=", with its digest"
  else
    dump "$database" "$partial"
  fi
  # A dump pg_restore cannot read is worse than none: check before keeping it.
  pg_restore --list "$partial" >/dev/null
  if [[ -n "$partial_digest" ]]; then
    mv -- "$partial_digest" "$final.digest"
    partial_digest=""
  fi
  mv -- "$partial" "$final"
  partial=""
  (cd "$backup_dir" && sha256sum -- "$(basename "$final")" >"$(basename "$final").sha256")
  echo "backup: wrote $final ($(du -h -- "$final" | cut -f1))${with_digest}"
done

# Retention: only files this script writes, only older than keep_days.
find "$backup_dir" -maxdepth 1 -type f \( -name '*.dump' -o -name '*.dump.sha256' -o -name '*.dump.digest' \) -mtime +"$keep_days" -print -delete |
  sed 's/^/backup: pruned /'
echo "backup: done"
