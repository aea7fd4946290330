public import FareLensBus
import Foundation

/// Test messages: any `Codable` value becomes a bus message, encoded as JSON
/// on the wire. Production messages are protobuf (FareLensMessages).
public protocol JSONWireMessage: BusMessage, Codable {}

extension JSONWireMessage {
    public static var wireTypeName: String { "test.\(Self.self)" }
    public func wireEncoded() throws -> [UInt8] { Array(try JSONEncoder().encode(self)) }
    public init(wireEncoded bytes: [UInt8]) throws { self = try JSONDecoder().decode(Self.self, from: Data(bytes)) }
}
