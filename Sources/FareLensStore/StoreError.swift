import GRDB

/// A failure of a service's database, naming the path at fault.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    fileprivate enum Code: String, Hashable, Sendable {
        case directoryMissing = "directory-missing"
        case directoryNotWritable = "directory-not-writable"
        case notADirectory = "not-a-directory"
        case openFailed = "open-failed"
        case migrationFailed = "migration-failed"
        case diskFull = "disk-full"
        case writeFailed = "write-failed"
        case readFailed = "read-failed"
        case backupFailed = "backup-failed"
    }
    private let code: Code
    /// The file or directory at fault.
    public let path: String
    /// A one-line reason.
    public let message: String

    private init(_ code: Code, _ path: String, _ message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    /// Stable code, e.g. `directory-not-writable`.
    public var codeName: String { code.rawValue }

    public static func directoryMissing(_ path: String) -> StoreError {
        StoreError(.directoryMissing, path, "data directory '\(path)' does not exist (create it or pass --data-dir)")
    }
    /// `--data-dir` names a file (or anything else that is not a directory).
    public static func notADirectory(_ path: String) -> StoreError {
        StoreError(.notADirectory, path, "data directory '\(path)' is a file, not a directory (--data-dir, FARELENS_DATA_DIR, dataDir: name a directory)")
    }
    public static func directoryNotWritable(_ path: String) -> StoreError {
        StoreError(.directoryNotWritable, path, "data directory '\(path)' is not writable by this user")
    }
    public static func openFailed(_ path: String, _ reason: String) -> StoreError {
        StoreError(.openFailed, path, "cannot open database '\(path)': \(reason)")
    }
    public static func migrationFailed(_ path: String, _ reason: String) -> StoreError {
        StoreError(.migrationFailed, path, "cannot migrate database '\(path)': \(reason)")
    }
    public static func diskFull(_ path: String) -> StoreError {
        StoreError(.diskFull, path, "disk full while writing '\(path)'")
    }
    public static func writeFailed(_ path: String, _ reason: String) -> StoreError {
        StoreError(.writeFailed, path, "cannot write to database '\(path)': \(reason)")
    }
    public static func readFailed(_ path: String, _ reason: String) -> StoreError {
        StoreError(.readFailed, path, "cannot read database '\(path)': \(reason)")
    }
    public static func backupFailed(_ path: String, _ reason: String) -> StoreError {
        StoreError(.backupFailed, path, "cannot back up to '\(path)': \(reason)")
    }

    /// Maps an SQLite error on `path` to a named store error.
    public static func from(_ error: any Error, path: String, or fallback: (String, String) -> StoreError) -> StoreError {
        if let store = error as? StoreError { return store }
        if let database = error as? DatabaseError, database.resultCode == .SQLITE_FULL { return .diskFull(path) }
        return fallback(path, String(describing: error))
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
