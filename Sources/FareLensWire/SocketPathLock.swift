import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Which hub owns a socket path: the one holding an exclusive `flock` on
/// `<socket path>.lock` for as long as it runs.
///
/// Only the owner may remove or replace the socket file. A file's device and
/// inode cannot tell "my socket" from "the socket a restarted hub just bound"
/// (ext4 hands a freed inode number to the next file at once), so a hub that
/// was still closing could delete its successor's socket. The lock makes the
/// successor wait until the closing hub has removed its file and let go. The
/// kernel drops the lock when its process dies, even by `kill -9`, so a
/// crashed hub never blocks a restart. The lock file itself is left in place:
/// deleting it would let two hubs lock two different files.
final class SocketPathLock: Sendable {
    /// The lock file, `<socket path>.lock`.
    let path: String
    private let descriptor: Mutex<Int32?>

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = Mutex(descriptor)
    }

    deinit { release() }

    /// Takes the lock for `socketPath`, waiting up to `patience` for the hub
    /// that holds it to let go (a restart on the same path while the old hub
    /// is still closing).
    ///
    /// - Parameter someoneListens: asked when `patience` runs out, to say
    ///   why the path is taken.
    /// - Throws: ``WireProtocolError`` `socket-unavailable` naming the
    ///   reason: the lock file cannot be created, a node is listening there,
    ///   or the other hub has not finished shutting down.
    static func acquire(
        for socketPath: String, patience: Duration, someoneListens: () async -> Bool
    ) async throws(WireProtocolError) -> SocketPathLock {
        let path = socketPath + ".lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .socketUnavailable(socketPath, reason: "cannot create the lock file \(path): \(String(cString: strerror(errno)))")
        }
        let lock = SocketPathLock(path: path, descriptor: descriptor)
        let clock = ContinuousClock()
        let giveUp = clock.now.advanced(by: patience)
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                throw .socketUnavailable(socketPath, reason: "cannot lock \(path): \(String(cString: strerror(errno)))")
            }
            guard clock.now < giveUp else {
                if await someoneListens() {
                    throw .socketUnavailable(socketPath, reason: "another node is already listening there")
                }
                throw .socketUnavailable(socketPath, reason: "another hub on this path has not finished shutting down (it holds \(path))")
            }
            try? await Task.sleep(for: .milliseconds(5))  // safe: polls a lock a closing hub drops within milliseconds; bounded by `patience`; a blocking flock would hold a pool thread
        }
        return lock
    }

    /// Lets go of the lock (closing the descriptor releases the `flock`).
    /// Calling it again does nothing.
    func release() {
        descriptor.withLock { descriptor in
            if let open = descriptor { close(open) }
            descriptor = nil
        }
    }
}
