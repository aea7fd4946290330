public import FareLensBus

/// Node-level admin requests: every node (hub and spokes) answers them at
/// its own address `admin.node.<nodeName>`, which it lists in its hello, so
/// the hub routes them like any service address and refuses them to peers
/// that are not admin clients (the `admin` prefix; docs/wire-protocol.md 6.7).
///
/// The types' static ``BusRequest/address`` is the prefix `admin.node`,
/// which no node serves: send them with `bus.request(_:to: .node(name))`.
extension ServiceAddress {
    /// The prefix of every node's admin address.
    public static let nodeAdminPrefix = "admin.node."

    /// The admin address of the node named `name`.
    public static func node(_ name: String) -> ServiceAddress { ServiceAddress(nodeAdminPrefix + name) }
}

extension NodeMetricsRequest: BusRequest {
    public typealias Response = NodeMetricsResponse
    public static var address: ServiceAddress { "admin.node" }
}
extension NodeMetricsResponse: BusMessage {}

extension NodeLogLevelRequest: BusRequest {
    public typealias Response = NodeLogLevelResponse
    public static var address: ServiceAddress { "admin.node" }
}
extension NodeLogLevelResponse: BusMessage {}

extension NodeDatabasesRequest: BusRequest {
    public typealias Response = NodeDatabasesResponse
    public static var address: ServiceAddress { "admin.node" }
}
extension NodeDatabasesResponse: BusMessage {}

extension NodeBackupRequest: BusRequest {
    public typealias Response = NodeBackupResponse
    public static var address: ServiceAddress { "admin.node" }
}
extension NodeBackupResponse: BusMessage {}

extension NodeLoadRequest: BusRequest {
    public typealias Response = NodeLoadResponse
    public static var address: ServiceAddress { "admin.node" }
}
extension NodeLoadResponse: BusMessage {}

extension NodeClockRequest: BusRequest {
    public typealias Response = NodeClockResponse
    public static var address: ServiceAddress { "admin.node" }
}
extension NodeClockResponse: BusMessage {}
