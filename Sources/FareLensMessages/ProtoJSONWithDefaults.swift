import Foundation
public import SwiftProtobuf

/// protobuf's JSON of a message with every field that has no presence
/// printed even when it holds its default: an empty list as `[]`, an empty
/// map as `{}`, a zero as `0` (`"0"` for 64-bit integers, as protobuf's JSON
/// writes them), an empty string as `""`, an enum at zero by its name.
///
/// Protobuf's JSON leaves such fields out, so a script reading
/// `farelensctl alerts history --json` found no `alerts` key at all when a
/// user had no decisions. Other protobuf runtimes offer this as an option
/// (`always_print_fields_with_no_presence`); SwiftProtobuf 1.39 does not, so
/// this adds the fields from the messages' descriptors
/// (``FareLensDescriptors``). Fields with presence are left out when unset,
/// as protobuf does: a singular message field, a `optional` field, a
/// `oneof` member.
///
/// Keys are the `.proto` field names (snake_case), sorted by their bytes;
/// the text is compact (one line); every value is printed as protobuf
/// printed it (``PrintedJSON``). It decodes back into the same message.
public struct ProtoJSONWithDefaults: Sendable {
    /// What to add to each message type, by the type's full name without a leading dot ("farelens.alerts.v1.AlertRecord").
    private let plans: [String: [FieldPlan]]

    /// One field of a message: what to print when it is missing, and the
    /// message type to fill inside it when it is present.
    private struct FieldPlan: Sendable {
        /// The `.proto` field name's bytes (the key protobuf prints).
        let name: [UInt8]
        /// The text of its default, or nil for a field with presence (left out when unset).
        let missing: [UInt8]?
        /// The message type a present value holds (one, or a list of them); nil for scalars and maps.
        let nested: String?
    }

    /// FareLens's own messages, from ``FareLensDescriptors/setBase64``.
    public static let fareLens = ProtoJSONWithDefaults(descriptorSetBase64: FareLensDescriptors.setBase64)

    /// The messages of a serialized `FileDescriptorSet`, base64 (line breaks
    /// ignored). A set that does not decode leaves every message as protobuf
    /// prints it (``knows(_:)`` says so).
    public init(descriptorSetBase64: String) {
        let set = Data(base64Encoded: descriptorSetBase64, options: .ignoreUnknownCharacters)
            .flatMap { try? Google_Protobuf_FileDescriptorSet(serializedBytes: $0) }
        var messages: [String: (descriptor: Google_Protobuf_DescriptorProto, proto3: Bool)] = [:]
        var zeroEnumNames: [String: String] = [:]
        var mapEntries: Set<String> = []
        func add(_ message: Google_Protobuf_DescriptorProto, scope: String, isProto3: Bool) {
            let name = scope + message.name
            messages[name] = (message, isProto3)
            if message.options.mapEntry { mapEntries.insert(name) }
            for nested in message.nestedType { add(nested, scope: name + ".", isProto3: isProto3) }
            for type in message.enumType { addEnum(type, scope: name + ".") }
        }
        func addEnum(_ type: Google_Protobuf_EnumDescriptorProto, scope: String) {
            zeroEnumNames[scope + type.name] = type.value.first { $0.number == 0 }?.name
        }
        for file in set?.file ?? [] {
            let scope = file.package.isEmpty ? "" : file.package + "."
            for message in file.messageType { add(message, scope: scope, isProto3: file.syntax == "proto3") }
            for type in file.enumType { addEnum(type, scope: scope) }
        }
        /// What protobuf's JSON would print for `field` at its default, or nil
        /// for a field with presence (left out when unset): in a proto2 file,
        /// every singular field has presence.
        func missing(_ field: Google_Protobuf_FieldDescriptorProto, type nested: String, inProto3: Bool) -> String? {
            if field.label == .repeated { return mapEntries.contains(nested) ? "{}" : "[]" }
            // A proto3 `optional` field is the one member of a oneof of its own.
            if !inProto3 || field.hasOneofIndex { return nil }
            switch field.type {
            case .message, .group: return nil
            case .string, .bytes: return "\"\""
            case .bool: return "false"
            case .int64, .uint64, .sint64, .fixed64, .sfixed64: return "\"0\""
            case .enum: return zeroEnumNames[nested].map { "\"\($0)\"" } ?? "0"
            default: return "0"
            }
        }
        plans = messages.mapValues { message in
            message.descriptor.field.map { field in
                let nested = Self.fullName(field.typeName)
                // A map is left as protobuf prints it: FareLens's maps hold scalars.
                let holdsMessages = (field.type == .message || field.type == .group) && !mapEntries.contains(nested)
                return FieldPlan(
                    name: Array(field.name.utf8), missing: missing(field, type: nested, inProto3: message.proto3).map { Array($0.utf8) },
                    nested: holdsMessages ? nested : nil)
            }
        }
    }

    /// Whether `type`'s descriptor is known, so its defaults are printed.
    public func knows(_ type: any SwiftProtobuf.Message.Type) -> Bool {
        plans[type.protoMessageName] != nil
    }

    /// `message` as protobuf's JSON with the `.proto` field names and every
    /// field without presence, on one line. A message whose descriptor is
    /// not known is printed as protobuf prints it (keys in field order, no defaults).
    ///
    /// - Throws: what SwiftProtobuf's `jsonString(options:)` throws for the message.
    public func text(of message: any SwiftProtobuf.Message) throws -> String {
        String(decoding: try utf8(of: message), as: UTF8.self)
    }

    /// ``text(of:)``'s UTF-8 bytes, without making a `String` of them (an HTTP body needs only the bytes).
    public func utf8(of message: any SwiftProtobuf.Message) throws -> [UInt8] {
        var options = JSONEncodingOptions()
        options.preserveProtoFieldNames = true
        let plain: [UInt8] = try message.jsonUTF8Bytes(options: options)
        let typeName = type(of: message).protoMessageName
        guard plans[typeName] != nil, let printed = PrintedJSON.parse(plain) else { return plain }
        var output: [UInt8] = []
        output.reserveCapacity(plain.count * 2)
        filled(printed, type: typeName).write(into: &output)
        return output
    }

    /// `value`, a message of type `typeName` (or a list of them) as
    /// protobuf's JSON, with its missing fields without presence added, and
    /// the same done to every message inside it.
    private func filled(_ value: PrintedJSON, type typeName: String) -> PrintedJSON {
        switch value {
        case .array(let elements):
            return .array(elements.map { filled($0, type: typeName) })
        case .literal:
            return value
        case .object(var members):
            guard let plan = plans[typeName] else { return value }
            for field in plan {
                if let index = members.firstIndex(where: { $0.key.elementsEqual(field.name) }) {
                    if let nested = field.nested { members[index].value = filled(members[index].value, type: nested) }
                } else if let missing = field.missing {
                    members.append(.init(key: field.name[...], value: .literal(missing[...])))
                }
            }
            return .object(members)
        }
    }

    /// A descriptor's type reference (".farelens.common.v1.Money") as the
    /// messages are keyed ("farelens.common.v1.Money").
    private static func fullName(_ typeName: String) -> String {
        typeName.hasPrefix(".") ? String(typeName.dropFirst()) : typeName
    }
}
