import GRDB

/// The link from a Sign in with Apple subject (the identity token's `sub`)
/// to its user, as the `appleSubject` table stores it (migration
/// `subscription-004-identity`).
struct AppleSubjectRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "appleSubject"

    var subject: String
    var userID: String
    var linkedAtUnixMs: Int64

    /// The table, created by migration `subscription-004-identity`.
    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("subject", .text).primaryKey()
            table.column("userID", .text).notNull().indexed().references(UserRecord.databaseTableName, onDelete: .cascade)
            table.column("linkedAtUnixMs", .integer).notNull()
        }
    }
}
