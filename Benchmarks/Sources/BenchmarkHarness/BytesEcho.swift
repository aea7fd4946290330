import FareLensBus

/// A request whose wire form is its bytes as they are (no protobuf, no
/// JSON), so the payload on the wire is exactly `bytes.count` and a
/// benchmark compares with a reference client sending the same bytes.
public struct BytesEchoRequest: BusRequest {
    public typealias Response = BytesEchoResponse
    public static let address: ServiceAddress = "bench-wire"
    public static let wireTypeName = "bench.EchoRequest"
    public let bytes: [UInt8]
    public init(bytes: [UInt8]) { self.bytes = bytes }
    public init(wireEncoded bytes: [UInt8]) { self.bytes = bytes }
    public func wireEncoded() -> [UInt8] { bytes }
}

/// The handler's answer: the same bytes back.
public struct BytesEchoResponse: BusMessage {
    public static let wireTypeName = "bench.EchoResponse"
    public let bytes: [UInt8]
    public init(bytes: [UInt8]) { self.bytes = bytes }
    public init(wireEncoded bytes: [UInt8]) { self.bytes = bytes }
    public func wireEncoded() -> [UInt8] { bytes }
}
