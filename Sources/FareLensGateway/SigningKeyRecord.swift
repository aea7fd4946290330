import GRDB

/// An ES256 key that signs access tokens, as the gateway's `signingKey`
/// table keeps it (migration `gateway-001-signing-keys`) when no key files
/// are configured: made on first start so a restart keeps every session.
struct SigningKeyRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "signingKey"

    /// The `kid` of the tokens it signs.
    var kid: String
    /// PKCS#8 PEM of the private key.
    var privateKeyPEM: String
    var createdAtUnixMs: Int64

    /// The table, created by migration `gateway-001-signing-keys`.
    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("kid", .text).primaryKey()
            table.column("privateKeyPEM", .text).notNull()
            table.column("createdAtUnixMs", .integer).notNull()
        }
    }
}
