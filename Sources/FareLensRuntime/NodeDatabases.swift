import Dispatch
import FareLensStore
import Foundation
import Synchronization

/// The service databases a node has open, so that its admin
/// address can back them up online.
final class NodeDatabases: Sendable {
    private let open = Mutex<[(service: String, database: ServiceDatabase)]>([])

    /// A hosted service opened its database.
    func add(_ database: ServiceDatabase) {
        open.withLock { $0.append((database.service, database)) }
    }

    /// A hosted service is about to close its database.
    func remove(_ service: String) {
        open.withLock { $0.removeAll { $0.service == service } }
    }

    /// The services whose databases are open, sorted by name.
    var services: [String] { open.withLock { $0.map(\.service) }.sorted() }

    /// Copies `service`'s database into `<directory>/<node>/<service>.sqlite`
    /// with SQLite's online backup (the service keeps reading and writing),
    /// off the cooperative pool, and returns the file's path and size.
    ///
    /// - Throws: ``NodeAdminError`` `relative-path`, `unknown-database`,
    ///   `target-not-empty` or `backup-failed`.
    func backup(_ service: String, into directory: String, node: String) async throws(NodeAdminError) -> (path: String, bytes: UInt64) {
        guard directory.hasPrefix("/") else { throw .relativePath(directory) }
        guard let database = open.withLock({ $0.first { $0.service == service }?.database }) else {
            throw .unknownDatabase(service, node: node, known: services)
        }
        let folder = URL(fileURLWithPath: directory).appendingPathComponent(node)
        let target = folder.appendingPathComponent("\(service).sqlite").path
        if let size = Self.size(of: target), size > 0 { throw .targetNotEmpty(target) }
        let result: Result<UInt64, NodeAdminError> = await withCheckedContinuation { continuation in
            // A backup of a large file blocks for a while: not on the pool.
            DispatchQueue.global().async {
                continuation.resume(returning: Self.copy(database, to: target, folder: folder))
            }
        }
        return (target, try result.get())
    }

    private static func copy(_ database: ServiceDatabase, to target: String, folder: URL) -> Result<UInt64, NodeAdminError> {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try database.backup(to: target)
        } catch {
            return .failure(.backupFailed(target, "\(error)"))
        }
        return .success(size(of: target) ?? 0)
    }

    private static func size(of path: String) -> UInt64? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? UInt64  // safe: a missing file has no size
    }
}
