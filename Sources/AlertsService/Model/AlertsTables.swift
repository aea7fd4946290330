import FareLensStore
import GRDB

/// What the alerts service's three actors — intake (``AlertsService``),
/// delivery (``AlertDelivery``) and the digest (``AlertDigest``) — share:
/// one database, `alerts.sqlite`, read and written the same way. Which
/// actor writes which table is in docs/alerts.md, "Three actors".
protocol AlertsTables: Actor {
    var database: ServiceDatabase { get }
}

extension AlertsTables {
    /// A write transaction for a request, awaited (``ServiceDatabase/writeToEnd(_:storageError:)``):
    /// the database's writer is often in the middle of a batch of decisions
    /// (up to about 20 ms), and a blocking write held the actor, and one of
    /// the pool's threads, until it was done. `body`'s own errors come out
    /// as they are, any other failure as `storage`.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws(AlertsError) -> T) async throws(AlertsError) -> T {
        try await database.writeToEnd(body, storageError: AlertsError.storage)
    }

    func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws(AlertsError) -> T {
        try database.read(body, storageError: AlertsError.storage)
    }

    /// Runs `body`, passing an ``AlertsError`` through and turning any other error into `storage`.
    static func catching<T>(_ body: () throws -> T) throws(AlertsError) -> T {
        do { return try body() } catch let error as AlertsError { throw error } catch { throw .storage(error) }
    }

    static func requireUser(_ userID: String) throws(AlertsError) {
        guard !userID.isEmpty else { throw .invalidField("user_id", "is required") }
    }
}
