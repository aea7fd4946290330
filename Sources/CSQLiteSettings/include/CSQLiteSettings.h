#ifndef FARELENS_CSQLITESETTINGS_H
#define FARELENS_CSQLITESETTINGS_H

/// Applies FareLens's process-wide SQLite settings, once per process:
/// SQLite's memory statistics off (`sqlite3_config(SQLITE_CONFIG_MEMSTATUS,
/// 0)`), because with them on every allocation SQLite makes takes a
/// process-wide mutex to count it. They take effect only before SQLite is
/// first used in the process, so every place that opens a database calls
/// this first. Returns the first call's SQLite result code: `SQLITE_OK`, or
/// `SQLITE_MISUSE` when SQLite was already in use.
///
/// `sqlite3_config` is variadic, so Swift cannot call it: this is the C
/// that does (docs/decisions/0018-sqlite-memory-statistics-off.md).
int farelens_sqlite_configure_once(void);

#endif
