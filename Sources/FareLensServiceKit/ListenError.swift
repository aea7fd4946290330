/// A server of the node could not listen where it was told to (a port in
/// use, an address not on this machine): the node stops with this error,
/// which names the server, the address and the keys that set it.
public struct ListenError: Error, CustomStringConvertible, Sendable {
    /// What could not listen, e.g. "the metrics endpoint".
    public let server: String
    /// The configuration key and flag that set the address, e.g. "metrics.listen, --metrics-listen".
    public let keys: String
    public let host: String
    public let port: Int
    /// The system's reason, as text.
    public let reason: String
    /// The error the server's bind threw, kept as itself (NIO's `IOError` for a port in use).
    public let underlying: any Error

    /// A failure to listen, caused by `underlying`; ``reason`` is its text.
    public init(server: String, keys: String, host: String, port: Int, cause underlying: any Error) {
        self.server = server
        self.keys = keys
        self.host = host
        self.port = port
        self.reason = "\(underlying)"
        self.underlying = underlying
    }

    /// Whether the address is taken by another process.
    public var addressInUse: Bool { reason.contains("Address already in use") || reason.contains("errno: 98") }

    public var description: String {
        "\(server) cannot listen on \(host):\(port) (\(keys)): \(addressInUse ? "the address is in use; choose another port or stop what holds it" : reason)"
    }
}
