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
/// crashed hub never blocks a restart.
///
/// A clean stop removes the lock file too, while still holding the lock,
/// then lets go. So that two hubs never hold locks on two different files, a
/// hub that has locked a file checks that it is still the one at the path
/// (same device and inode: the file it holds open cannot have its inode
/// handed on); if the holder before it removed it meanwhile, it opens the
/// path anew and locks again.
final class SocketPathLock: Sendable {
    /// The lock file, `<socket path>.lock`.
    let path: String
    private let descriptor: Mutex<Int32?>

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = Mutex(descriptor)
    }

    /// Never removes the file: only a holder that stops cleanly says so (``release(removingFile:)``).
    deinit { release(removingFile: false) }

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
        let clock = ContinuousClock()
        let giveUp = clock.now.advanced(by: patience)
        while true {
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                throw .socketUnavailable(socketPath, reason: "cannot create the lock file \(path): \(String(cString: strerror(errno)))")
            }
            let candidate = SocketPathLock(path: path, descriptor: descriptor)
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
            if candidate.isStillAtPath() { return candidate }
            // The hub before removed the file it held (a clean stop) after this one opened it: lock the path's file now.
            candidate.release(removingFile: false)
        }
    }

    /// Whether the locked file is the one the path names now.
    private func isStillAtPath() -> Bool {
        descriptor.withLock { descriptor in
            guard let descriptor else { return false }
            var held = stat()
            var named = stat()
            guard fstat(descriptor, &held) == 0, stat(path, &named) == 0 else { return false }
            return held.st_dev == named.st_dev && held.st_ino == named.st_ino
        }
    }

    /// Lets go of the lock (closing the descriptor releases the `flock`),
    /// first removing the lock file when `removingFile` (a clean stop:
    /// nothing is left behind). Calling it again does nothing.
    func release(removingFile: Bool = true) {
        descriptor.withLock { descriptor in
            guard let open = descriptor else { return }
            if removingFile { unlink(path) }
            close(open)
            descriptor = nil
        }
    }
}
