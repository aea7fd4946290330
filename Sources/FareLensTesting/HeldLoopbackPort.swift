#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP port of 127.0.0.1 the test holds, so no one else is given it:
/// listening (a server that wants it finds it in use) or only bound (a
/// connection to it is refused). Close it when done.
public struct HeldLoopbackPort: Sendable {
    public let descriptor: Int32
    public let port: Int

    /// Binds a free port of 127.0.0.1, and listens on it when `listening`.
    public init(listening: Bool) throws(HeldLoopbackPortError) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HeldLoopbackPortError(errno: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound, !listening || listen(fd, 1) == 0 else {
            let code = errno
            Self.release(fd)
            throw HeldLoopbackPortError(errno: code)
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Lets the port go.
    public func close() { Self.release(descriptor) }

    private static func release(_ descriptor: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
    }
}

/// The port could not be held (`errno`).
public struct HeldLoopbackPortError: Error, Sendable {
    public let errno: Int32
}
