import GRDB

/// One refresh token, as the `refreshToken` table stores it (migration
/// `subscription-004-identity`): its SHA-256 digest, never the token.
/// Tokens rotated from one sign-in form a family; presenting a rotated one
/// again revokes the family (docs/api.md, "Sessions").
struct RefreshTokenRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "refreshToken"

    /// Where a token is in its life.
    enum State: Int, Codable, Sendable {
        /// It may be exchanged once.
        case active = 0
        /// It was exchanged for its successor; presenting it again is theft or a replay.
        case rotated = 1
        /// Signed out, reused, or its user's sessions were ended.
        case revoked = 2
    }

    /// Lower-case hex SHA-256 of the token's text.
    var digest: String
    var familyID: String
    var userID: String
    var issuedAtUnixMs: Int64
    var expiresAtUnixMs: Int64
    var state: State

    /// The table, created by migration `subscription-004-identity`.
    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("digest", .text).primaryKey()
            table.column("familyID", .text).notNull().indexed()
            table.column("userID", .text).notNull().indexed().references(UserRecord.databaseTableName, onDelete: .cascade)
            table.column("issuedAtUnixMs", .integer).notNull()
            table.column("expiresAtUnixMs", .integer).notNull().indexed()
            table.column("state", .integer).notNull()
        }
    }
}
