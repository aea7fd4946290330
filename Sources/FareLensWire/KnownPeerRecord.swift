import FareLensMessages
import Foundation
import GRDB

/// A node a hub has seen join, remembered across restarts so its durable
/// events keep waiting for it: a row of the `known_peer` table
/// (migration `bridge-002-known-peers`).
struct KnownPeerRecord: Codable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "known_peer"

    /// The columns, for queries.
    enum Columns {
        static let name = Column(CodingKeys.name)
    }

    /// The node's name (its hello's `node_name`).
    var name: String
    /// The node's serialized hello: its services and wanted topics.
    var hello: Data

    /// The row remembering `hello`.
    init(_ hello: WireHello) throws {
        name = hello.nodeName
        self.hello = try hello.serializedBytes()
    }

    /// The hello, decoded.
    func decoded() throws -> WireHello { try WireHello(serializedBytes: hello) }
}
