import Foundation
import GRDB

/// The key generated when `analytics.pseudonymKeys` is not configured, as the
/// `generated_key` table keeps it (migration `analytics-001-events`): one row,
/// version 0, 32 random bytes. It stays usable for finding old rows after
/// keys are configured, so moving to configured keys orphans nothing.
struct GeneratedKeyRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "generated_key"

    /// Always 0.
    var version: Int
    var secret: Data
    var createdAtUnixMs: Int64

    var key: PseudonymKey { PseudonymKey(version: version, secret: secret) }

    /// The stored key, or none.
    static func stored(_ db: Database) throws -> GeneratedKeyRecord? {
        try GeneratedKeyRecord.fetchOne(db, key: 0)
    }

    /// The stored key, generating and storing it first when there is none.
    static func storedOrGenerated(_ db: Database, now: Int64) throws -> (record: GeneratedKeyRecord, generated: Bool) {
        if let record = try stored(db) { return (record, false) }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0 ..< PseudonymKey.minimumBytes).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
        let record = GeneratedKeyRecord(version: 0, secret: Data(bytes), createdAtUnixMs: now)
        try record.insert(db)
        return (record, true)
    }

    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("version", .integer).primaryKey()
            table.column("secret", .blob).notNull()
            table.column("createdAtUnixMs", .integer).notNull()
        }
    }
}
