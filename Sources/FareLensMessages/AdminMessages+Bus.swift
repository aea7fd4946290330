public import FareLensBus

/// Admin requests: answered by the hub at address `admin`, refused to peers
/// that are not admin clients.
extension ServiceAddress {
    /// The hub's admin endpoint.
    public static let admin: ServiceAddress = "admin"
}

extension MeshStatusRequest: BusRequest {
    public typealias Response = MeshStatusResponse
    public static var address: ServiceAddress { .admin }
}
extension MeshStatusResponse: BusMessage {}

extension ForgetNodeRequest: BusRequest {
    public typealias Response = ForgetNodeResponse
    public static var address: ServiceAddress { .admin }
}
extension ForgetNodeResponse: BusMessage {}
