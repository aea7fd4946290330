public import FareLensBus
public import SwiftProtobuf

/// Every generated protobuf message that declares itself a ``BusRequest`` or
/// ``BusEvent`` gets its wire form here: the fully qualified proto name as the
/// type name, and protobuf binary encoding. The bus calls these only when a
/// message crosses a process boundary.
extension BusMessage where Self: SwiftProtobuf.Message {
    public static var wireTypeName: String { protoMessageName }
    public func wireEncoded() throws -> [UInt8] { try serializedBytes() }
    public init(wireEncoded bytes: [UInt8]) throws { try self.init(serializedBytes: bytes) }
}
