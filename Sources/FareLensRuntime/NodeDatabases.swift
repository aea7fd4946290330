import Dispatch
import FareLensServiceKit
import FareLensStore
import Foundation
import Synchronization

/// The service databases a node has open, so that its admin
/// address can back them up online.
final class NodeDatabases: Sendable {
    private let open = Mutex<[(service: String, database: ServiceDatabase)]>([])
    /// Targets a backup is being written to now.
    private let writing = Mutex<Set<String>>([])

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
    /// The copy is written to `<service>.sqlite.partial` and renamed when
    /// complete, so the file under its final name is always a whole backup;
    /// a partial file left by a failed or interrupted backup is replaced by
    /// the next attempt. A backup the caller stopped waiting for (its
    /// `--timeout-ms`) still completes on the node.
    ///
    /// - Throws: ``NodeAdminError`` `relative-path`, `unknown-database`,
    ///   `target-not-empty` (also while an earlier request still writes the
    ///   same file) or `backup-failed` (with the reason in words: a path that
    ///   is a file, a directory that cannot be written).
    func backup(_ service: String, into directory: String, node: String) async throws(NodeAdminError) -> (path: String, bytes: UInt64) {
        guard directory.hasPrefix("/") else { throw .relativePath(directory) }
        guard let database = open.withLock({ $0.first { $0.service == service }?.database }) else {
            throw .unknownDatabase(service, node: node, known: services)
        }
        let folder = URL(fileURLWithPath: directory).appendingPathComponent(node)
        let target = folder.appendingPathComponent("\(service).sqlite").path
        guard writing.withLock({ $0.insert(target).inserted }) else { throw .targetBeingWritten(target) }
        defer { _ = writing.withLock { $0.remove(target) } }
        if let size = Self.size(of: target), size > 0 { throw .targetNotEmpty(target, bytes: size) }
        let result: Result<UInt64, NodeAdminError> = await withCheckedContinuation { continuation in
            // A backup of a large file blocks for a while: not on the pool.
            DispatchQueue.global().async {
                continuation.resume(returning: Self.copy(database, to: target, folder: folder))
            }
        }
        return (target, try result.get())
    }

    private static func copy(_ database: ServiceDatabase, to target: String, folder: URL) -> Result<UInt64, NodeAdminError> {
        let partial = target + ".partial"
        if let unusable = unwritableFolder(folder.path) { return .failure(.backupFailed(target, unusable)) }
        do {
            // Owner only, as the databases themselves: a backup holds emails and password hashes.
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            if FileManager.default.fileExists(atPath: partial) { try FileManager.default.removeItem(atPath: partial) }
            // Made empty with mode 0600 before SQLite opens it, so the copy is never readable by others, even
            // while written (SQLite keeps an existing file's mode, and gives its journal the same).
            guard FileManager.default.createFile(atPath: partial, contents: Data(), attributes: [.posixPermissions: 0o600]) else {
                throw POSIXError(.EACCES)
            }
            try database.backup(to: partial)
            guard rename(partial, target) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        } catch {
            try? FileManager.default.removeItem(atPath: partial)  // safe: a failed copy's leftovers; the error below is what matters
            return .failure(.backupFailed(target, reason(error)))
        }
        return .success(size(of: target) ?? 0)
    }

    /// Why a backup cannot be written under `path`, in words, or nil: the
    /// nearest part of the path that exists must be a directory this
    /// process can write in (what `createDirectory` would otherwise report
    /// as a Foundation error number).
    static func unwritableFolder(_ path: String) -> String? {
        var existing = path
        var isDirectory: ObjCBool = false
        while !FileManager.default.fileExists(atPath: existing, isDirectory: &isDirectory) {
            let parent = (existing as NSString).deletingLastPathComponent
            guard parent != existing else { return nil }
            existing = parent
        }
        guard isDirectory.boolValue else { return "'\(existing)' is a file, not a directory" }
        guard FileManager.default.isWritableFile(atPath: existing) else { return "this node cannot write in '\(existing)' (permission denied)" }
        return nil
    }

    /// An error's reason in words: the POSIX error beneath a Foundation one.
    private static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let posix = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(posix.code)))
        }
        if nsError.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(nsError.code))) }
        return "\(error)"
    }

    private static func size(of path: String) -> UInt64? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? UInt64  // safe: a missing file has no size
    }
}
