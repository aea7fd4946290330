import FareLensMessages
import Foundation
import GRDB
import SwiftProtobuf

/// A current deal (score ≥ 60), as the `deal` table stores it (migration
/// `scoring-001-history`): the `Deal` message itself, plus the columns the
/// service filters on. Rows leave when the deal expires (7 days after it was
/// observed, or at departure).
struct DealRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "deal"

    var dealID: String
    var expiresAtUnixMs: Int64
    /// The `Deal` in protobuf binary.
    var message: Data

    init(_ deal: Deal) throws {
        dealID = deal.dealID
        expiresAtUnixMs = deal.expiresAtUnixMs
        message = try deal.serializedBytes()
    }

    /// Inserts or replaces the row (a cached statement: ingest writes every deal).
    func upsert(in db: Database) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO deal (dealID, expiresAtUnixMs, message) VALUES (?, ?, ?)")
            .execute(arguments: [dealID, expiresAtUnixMs, message])
    }

    /// The stored deal; nil if the bytes no longer decode.
    var deal: Deal? { try? Deal(serializedBytes: message) }

    /// The table, created by migration `scoring-001-history`.
    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("dealID", .text).primaryKey()
            table.column("expiresAtUnixMs", .integer).notNull().indexed()
            table.column("message", .blob).notNull()
        }
    }
}
