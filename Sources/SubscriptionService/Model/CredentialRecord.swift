import GRDB

/// A password account's secret and its failed sign-ins, as the `credential`
/// table stores them (migration `subscription-004-identity`). The password
/// itself is never stored: only its bcrypt hash.
struct CredentialRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "credential"

    var userID: String
    /// bcrypt (`$2b$…`), cost and salt inside.
    var passwordHash: String
    /// Failed sign-ins since `failureWindowStartUnixMs`.
    var failures: Int
    /// When the current window of failures began; 0 when there is none.
    var failureWindowStartUnixMs: Int64
    /// Sign-ins are refused until then; 0 when not throttled.
    var lockedUntilUnixMs: Int64

    /// The table, created by migration `subscription-004-identity`.
    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("userID", .text).primaryKey().references(UserRecord.databaseTableName, onDelete: .cascade)
            table.column("passwordHash", .text).notNull()
            table.column("failures", .integer).notNull()
            table.column("failureWindowStartUnixMs", .integer).notNull()
            table.column("lockedUntilUnixMs", .integer).notNull()
        }
    }
}
