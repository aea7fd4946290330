public import FareLensBus

// Identity requests (Protos/identity.proto), answered by the subscription
// service, where users live; the gateway is their only caller.

extension PasswordSignUpRequest: BusRequest {
    public typealias Response = SessionGrant
    public static var address: ServiceAddress { .subscription }
}
extension SessionGrant: BusMessage {}

extension PasswordSignInRequest: BusRequest {
    public typealias Response = PasswordSignInResponse
    public static var address: ServiceAddress { .subscription }
}
extension PasswordSignInResponse: BusMessage {}

extension AppleSignInRequest: BusRequest {
    public typealias Response = SessionGrant
    public static var address: ServiceAddress { .subscription }
}

extension RefreshSessionRequest: BusRequest {
    public typealias Response = SessionGrant
    public static var address: ServiceAddress { .subscription }
}

extension SignOutRequest: BusRequest {
    public typealias Response = SignOutResponse
    public static var address: ServiceAddress { .subscription }
}
extension SignOutResponse: BusMessage {}
