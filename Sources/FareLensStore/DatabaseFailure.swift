import GRDB

/// What a failed write says about its cause, for a service deciding whether
/// trying it again can help: a failure of the **data** written (a
/// constraint, a value too big) fails the same way every time, a failure of
/// the **database** (a full disk, an I/O error, a busy or corrupt file) may
/// pass. `StoreError.from` names the disk-full case for requests.
public enum DatabaseFailure {
    /// Whether `error` comes from the data written rather than from the
    /// database: SQLite's `CONSTRAINT`, `MISMATCH`, `TOOBIG` or `RANGE`
    /// (any extended code of them), or a value that cannot be encoded.
    public static func isCausedByData(_ error: any Error) -> Bool {
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_CONSTRAINT, .SQLITE_MISMATCH, .SQLITE_TOOBIG, .SQLITE_RANGE: return true
            default: return false
            }
        }
        return error is EncodingError
    }

    /// SQLite's extended result code and message, without the statement or
    /// its arguments (they may hold a user's data); any other error's
    /// description.
    public static func summary(_ error: any Error) -> String {
        guard let error = error as? DatabaseError else { return "\(error)" }
        return "SQLite error \(error.extendedResultCode.rawValue): \(error.message ?? "")"
    }
}
