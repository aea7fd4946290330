internal import CSQLiteSettings
internal import GRDBSQLite

/// SQLite's process-wide settings: its memory statistics off, so that its
/// allocations take no process-wide mutex (docs/decisions/0018). They must
/// be applied before SQLite is first used in the process; every database
/// this package opens applies them first.
public enum SQLiteProcessSettings {
    /// Applies the settings (once per process; later calls repeat the first
    /// call's outcome).
    ///
    /// - Returns: whether they took effect; false when SQLite was used
    ///   before the first call.
    @discardableResult
    public static func apply() -> Bool {
        farelens_sqlite_configure_once() == SQLITE_OK
    }

    /// The bytes SQLite has counted as allocated: 0 while its memory
    /// statistics are off.
    public static var countedMemoryBytes: Int64 {
        sqlite3_memory_used()
    }
}
