#!/usr/bin/env bash
# Restores one node's databases from a backup, with the node stopped.
#
#   ops/restore.sh BACKUP_NODE_DIR DATA_DIR
#
# BACKUP_NODE_DIR is one node's directory of a backup (DIR/<time>/<node>/,
# holding <service>.sqlite files); DATA_DIR is that node's data directory.
# Refuses while any process has a file of DATA_DIR open (a running node), and
# refuses a file that is not a sound SQLite database. The databases it
# replaces (with their -wal and -shm files) are moved to
# DATA_DIR/pre-restore-<UTC time>/, never deleted.
set -euo pipefail
usage() { echo "usage: ops/restore.sh BACKUP_NODE_DIR DATA_DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
backup="${1%/}"; data="${2%/}"
[ -d "$backup" ] || { echo "restore: no backup directory $backup" >&2; exit 1; }
[ -d "$data" ] || { echo "restore: no data directory $data" >&2; exit 1; }
data="$(cd "$data" && pwd)"

# A running node holds its databases open.
for fd in /proc/[0-9]*/fd/*; do
  target="$(readlink "$fd" 2>/dev/null || true)"
  case "$target" in
    "$data"/*) pid="${fd#/proc/}"; pid="${pid%%/*}"
      echo "restore: refused: process $pid has $target open; stop the node first (systemctl stop …, or Ctrl-C)" >&2; exit 1 ;;
  esac
done

shopt -s nullglob
files=("$backup"/*.sqlite)
[ ${#files[@]} -gt 0 ] || { echo "restore: no <service>.sqlite files in $backup" >&2; exit 1; }
for file in "${files[@]}"; do
  if [ "$(head -c 15 "$file")" != "SQLite format 3" ]; then
    echo "restore: refused: $file is not an SQLite database" >&2; exit 1
  fi
  if command -v sqlite3 >/dev/null; then
    check="$(sqlite3 -readonly "$file" 'PRAGMA integrity_check' 2>&1 || true)"
    [ "$check" = "ok" ] || { echo "restore: refused: $file fails its integrity check: $check" >&2; exit 1; }
  fi
done

aside="$data/pre-restore-$(date -u +%Y%m%dT%H%M%SZ)"
for file in "${files[@]}"; do
  name="$(basename "$file")"
  for old in "$data/$name" "$data/$name-wal" "$data/$name-shm"; do
    if [ -e "$old" ]; then mkdir -p "$aside"; mv "$old" "$aside/"; fi
  done
  cp "$file" "$data/$name"
  echo "restored $name"
done
[ -d "$aside" ] && echo "restore: the databases replaced are in $aside"
echo "restore: done; start the node again"
