#!/usr/bin/env bash
# Online backup of every service database on every node of a running mesh.
#
#   ops/backup.sh /var/backups/farelens [--socket /run/farelens/hub.sock]
#
# Makes DIR/<UTC time>/ and asks each node (farelensctl backup) to copy its
# databases into DIR/<UTC time>/<node>/<service>.sqlite with SQLite's backup
# API while it keeps serving. DIR is a path on the nodes' machine. Restore a
# node from its directory with ops/restore.sh (docs/runbook.md).
set -euo pipefail
# The backup directory is the operator's only (the nodes write each copy 0600 too): copies hold emails.
umask 077
usage() { echo "usage: ops/backup.sh DIR [--socket PATH]" >&2; exit 2; }
[ $# -ge 1 ] || usage
dir="$1"; shift
case "$dir" in /*) ;; *) echo "backup: DIR must be an absolute path (the nodes write there), not '$dir'" >&2; exit 2 ;; esac
ctl="${FARELENSCTL:-farelensctl}"
command -v "$ctl" >/dev/null || ctl="$(cd "$(dirname "$0")/.." && pwd)/.build/debug/farelensctl"
target="$dir/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$target"
"$ctl" backup "$target" "$@"
echo "backup: $target"
