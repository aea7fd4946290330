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
/// Keys are the `.proto` field names (snake_case), sorted; the text is
/// compact (one line). It decodes back into the same message.
public struct ProtoJSONWithDefaults: Sendable {
    /// A message type's fields, by the type's full name without a leading dot ("farelens.alerts.v1.AlertRecord").
    private let messages: [String: Google_Protobuf_DescriptorProto]
    /// An enum type's name for its value 0, by the type's full name.
    private let zeroEnumNames: [String: String]
    /// The map-entry types (a map field is a repeated field of one), by full name.
    private let mapEntries: Set<String>
    /// The messages of proto3 files: only there is a singular scalar without presence.
    private let proto3: Set<String>

    /// FareLens's own messages, from ``FareLensDescriptors/setBase64``.
    public static let fareLens = ProtoJSONWithDefaults(descriptorSetBase64: FareLensDescriptors.setBase64)

    /// The messages of a serialized `FileDescriptorSet`, base64 (line breaks
    /// ignored). A set that does not decode leaves every message as protobuf
    /// prints it (``knows(_:)`` says so).
    public init(descriptorSetBase64: String) {
        let set = Data(base64Encoded: descriptorSetBase64, options: .ignoreUnknownCharacters)
            .flatMap { try? Google_Protobuf_FileDescriptorSet(serializedBytes: $0) }
        var messages: [String: Google_Protobuf_DescriptorProto] = [:]
        var zeroEnumNames: [String: String] = [:]
        var mapEntries: Set<String> = []
        var proto3: Set<String> = []
        func add(_ message: Google_Protobuf_DescriptorProto, scope: String, isProto3: Bool) {
            let name = scope + message.name
            messages[name] = message
            if message.options.mapEntry { mapEntries.insert(name) }
            if isProto3 { proto3.insert(name) }
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
        self.messages = messages
        self.zeroEnumNames = zeroEnumNames
        self.mapEntries = mapEntries
        self.proto3 = proto3
    }

    /// Whether `type`'s descriptor is known, so its defaults are printed.
    public func knows(_ type: any SwiftProtobuf.Message.Type) -> Bool {
        messages[type.protoMessageName] != nil
    }

    /// `message` as protobuf's JSON with the `.proto` field names and every
    /// field without presence, on one line. A message whose descriptor is
    /// not known is printed as protobuf prints it (keys in field order, no defaults).
    ///
    /// - Throws: what SwiftProtobuf's `jsonString(options:)` throws for the message.
    public func text(of message: any SwiftProtobuf.Message) throws -> String {
        var options = JSONEncodingOptions()
        options.preserveProtoFieldNames = true
        let plain = try message.jsonString(options: options)
        let typeName = type(of: message).protoMessageName
        guard messages[typeName] != nil,
              let object = try? JSONSerialization.jsonObject(with: Data(plain.utf8)) as? [String: Any],
              let data = try? JSONSerialization.data(withJSONObject: filled(object, type: typeName), options: [.sortedKeys, .withoutEscapingSlashes])
        else { return plain }
        return String(decoding: data, as: UTF8.self)
    }

    /// `object`, a message of type `typeName` as protobuf's JSON, with its
    /// missing fields without presence added, and the same done to every
    /// message inside it.
    private func filled(_ object: [String: Any], type typeName: String) -> [String: Any] {
        guard let descriptor = messages[typeName] else { return object }
        var object = object
        for field in descriptor.field {
            let nested = Self.fullName(field.typeName)
            if let value = object[field.name] {
                if field.type == .message || field.type == .group { object[field.name] = filledValue(value, type: nested) }
                continue
            }
            if let value = defaultValue(of: field, type: nested, inProto3: proto3.contains(typeName)) { object[field.name] = value }
        }
        return object
    }

    /// A present message-typed value with the messages inside it filled: one
    /// message or a list of them. A map is left as it is: FareLens's maps
    /// hold scalars, and a map of messages would print its values as
    /// protobuf does.
    private func filledValue(_ value: Any, type nested: String) -> Any {
        if mapEntries.contains(nested) { return value }
        if let list = value as? [Any] { return list.map { ($0 as? [String: Any]).map { filled($0, type: nested) } ?? $0 } }
        if let message = value as? [String: Any] { return filled(message, type: nested) }
        return value
    }

    /// What protobuf's JSON would print for `field` at its default, or nil
    /// for a field with presence (left out when unset): in a proto2 file,
    /// every singular field has presence.
    private func defaultValue(of field: Google_Protobuf_FieldDescriptorProto, type nested: String, inProto3: Bool) -> Any? {
        if field.label == .repeated { return mapEntries.contains(nested) ? [String: Any]() : [Any]() }
        // A proto3 `optional` field is the one member of a oneof of its own.
        if !inProto3 || field.hasOneofIndex { return nil }
        switch field.type {
        case .message, .group: return nil
        case .string, .bytes: return ""
        case .bool: return false
        case .int64, .uint64, .sint64, .fixed64, .sfixed64: return "0"
        case .enum: return zeroEnumNames[nested] ?? 0
        default: return 0
        }
    }

    /// A descriptor's type reference (".farelens.common.v1.Money") as the
    /// messages are keyed ("farelens.common.v1.Money").
    private static func fullName(_ typeName: String) -> String {
        typeName.hasPrefix(".") ? String(typeName.dropFirst()) : typeName
    }
}
