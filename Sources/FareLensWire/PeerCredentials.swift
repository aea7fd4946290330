import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// The uid of the process at the other end of a Unix socket, from the
/// kernel (`SO_PEERCRED`), so a peer cannot claim to be someone else.
enum PeerCredentials {
    /// The peer's uid, or nil where the platform cannot tell.
    static func uid(of channel: any Channel) -> EventLoopFuture<UInt32?> {
        #if os(Linux)
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        let future: EventLoopFuture<PeerCred> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED)
        )
        return future.map { Optional($0.uid) }.recover { _ -> UInt32? in nil }
        #else
        return channel.eventLoop.makeSucceededFuture(nil)
        #endif
    }
}

/// The layout of Linux's `struct ucred` (pid, uid, gid: three 32-bit
/// integers), which Glibc's module does not export without _GNU_SOURCE.
/// `unsafeGetSocketOption` sizes the buffer from this type's layout (12 bytes).
struct PeerCred: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}
