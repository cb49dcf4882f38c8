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
# half-written dump behind. Copy the directory off the host (object store,
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

mkdir -p "$backup_dir"
partial=""
cleanup() {
  if [[ -n "$partial" ]]; then rm -f -- "$partial"; fi
}
trap cleanup EXIT

for database in "${databases[@]}"; do
  final="$backup_dir/${database}-${stamp}.dump"
  partial="$backup_dir/.${database}-${stamp}.dump.partial"
  echo "backup: dumping $database"
  PGDATABASE="$database" pg_dump --format=custom --compress=6 --file="$partial"
  # A dump pg_restore cannot read is worse than none: check before keeping it.
  pg_restore --list "$partial" >/dev/null
  mv -- "$partial" "$final"
  partial=""
  (cd "$backup_dir" && sha256sum -- "$(basename "$final")" >"$(basename "$final").sha256")
  echo "backup: wrote $final ($(du -h -- "$final" | cut -f1))"
done

# Retention: only files this script writes, only older than keep_days.
find "$backup_dir" -maxdepth 1 -type f \( -name '*.dump' -o -name '*.dump.sha256' \) -mtime +"$keep_days" -print -delete |
  sed 's/^/backup: pruned /'
echo "backup: done"
