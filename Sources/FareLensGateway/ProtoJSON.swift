import CompressNIO
import FareLensMessages
import Foundation
import Hummingbird
import NIOCore
import SwiftProtobuf

/// The API's bodies are the bus messages in protobuf's JSON mapping
/// (snake_case field names, enums by name, 64-bit integers as strings),
/// every field printed even at its default (docs/api.md, "Bodies").
enum ProtoJSON {
    /// Bodies at least this long are gzipped for a client that accepts it.
    static let compressionThreshold = 1024

    /// A 2xx response to `request` with `message` as its JSON body, gzipped
    /// when the client accepts it and it is long enough. A `cacheable` one
    /// carries a strong `ETag` (a digest of the body), and a request whose
    /// `If-None-Match` names it is answered 304 with no body.
    static func response(
        _ message: some SwiftProtobuf.Message, to request: Request, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:], cacheable: Bool = false
    ) throws -> Response {
        let rendered: RenderedJSONMemo.Rendered
        do {
            rendered = try memo.rendered(message)
        } catch {
            throw Problem(.internalServerError, code: "internal", "the response could not be written")
        }
        return raw(rendered.json, tag: rendered.tag, to: request, status: status, headers: headers, cacheable: cacheable)
    }

    /// The bodies of recent answers, so a repeat is not printed again.
    static let memo = RenderedJSONMemo()

    /// A 2xx response to `request` with `text` (JSON) as its body; see ``response(_:to:status:headers:cacheable:)``.
    static func raw(
        _ text: String, to request: Request, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:], cacheable: Bool = false
    ) -> Response {
        raw(Array(text.utf8), to: request, status: status, headers: headers, cacheable: cacheable)
    }

    /// A 2xx response to `request` with `json` (UTF-8) as its body; see ``response(_:to:status:headers:cacheable:)``.
    /// `tag`, when given, is `json`'s entity tag, already computed.
    static func raw(
        _ json: [UInt8], tag knownTag: String? = nil, to request: Request, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:],
        cacheable: Bool = false
    ) -> Response {
        var fields = headers
        fields[.contentType] = "application/json"
        if cacheable {
            let tag = knownTag ?? RenderedJSONMemo.entityTag(of: json)
            fields[.eTag] = tag
            fields[.cacheControl] = "private, no-cache"
            if let match = request.headers[.ifNoneMatch], match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == tag || $0 == "*" }) {
                fields[.contentType] = nil
                return Response(status: .notModified, headers: fields)
            }
        }
        var body = ByteBuffer(bytes: json)
        fields[.vary] = "Accept-Encoding"
        if body.readableBytes >= compressionThreshold, Self.acceptsGzip(request), let zipped = try? body.compress(with: .gzip()) {
            body = zipped
            fields[.contentEncoding] = "gzip"
        }
        return Response(status: status, headers: fields, body: .init(byteBuffer: body))
    }

    /// Whether `Accept-Encoding` names gzip (or `*`) with a weight above zero.
    static func acceptsGzip(_ request: Request) -> Bool {
        guard let accepted = request.headers[.acceptEncoding] else { return false }
        return accepted.lowercased().split(separator: ",").contains { part in
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard pieces.first == "gzip" || pieces.first == "*" else { return false }
            let weight = pieces.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return weight > 0
        }
    }

    /// The request's JSON body as `M`: 415 if it is not JSON, 413 past the
    /// limit, 400 naming what does not parse (an unknown field too).
    static func decode<M: SwiftProtobuf.Message>(_ type: M.Type, from request: Request, context: GatewayRequestContext) async throws -> M {
        let bytes = try await body(of: request, context: context)
        if let path = firstNull(in: bytes) {
            throw Problem.badRequest("invalid-body", "\(path): null is not a value here; leave the field out instead", field: path)
        }
        var options = JSONDecodingOptions()
        options.ignoreUnknownFields = false
        do {
            return try M(jsonUTF8Bytes: bytes, options: options)
        } catch let error as SwiftProtobuf.JSONDecodingError {
            throw Problem.badRequest("invalid-body", "the body is not a valid \(Self.name(of: M.self)): \(Self.describe(error))")
        } catch {
            throw Problem.badRequest("invalid-body", "the body is not a valid \(Self.name(of: M.self))")
        }
    }

    /// The request's body: 415 if it is not JSON, 413 past the limit, 400 when empty.
    static func body(of request: Request, context: GatewayRequestContext) async throws -> [UInt8] {
        if let contentType = request.headers[.contentType], !contentType.lowercased().hasPrefix("application/json") {
            throw Problem(.unsupportedMediaType, code: "unsupported-media-type", "send the body as application/json, not \(contentType)")
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: context.bodyLimit)
        } catch {
            throw Problem(.contentTooLarge, code: "body-too-large", "the body is larger than \(context.bodyLimit) bytes")
        }
        guard buffer.readableBytes > 0 else { throw Problem.badRequest("invalid-body", "a JSON object is required") }
        return Array(buffer.readableBytesView)
    }

    /// The path of the first `null` in the JSON `bytes` (`quiet_hours.start`), if any: protobuf's
    /// JSON reads a null as the field's default, which the document does not allow, so it is refused.
    /// A body without the four bytes `null` anywhere has none and is not parsed (a JSON literal has
    /// no escapes): a search's body was, because its names hold an `n` (2% of a cached search's CPU).
    static func firstNull(in bytes: [UInt8]) -> String? {
        guard mentionsNull(bytes), let value = PrintedJSON.parse(bytes) else { return nil }
        func walk(_ value: PrintedJSON, _ path: String) -> String? {
            switch value {
            case .literal(let text): return text.elementsEqual("null".utf8) ? (path.isEmpty ? "body" : path) : nil
            case .object(let members):
                for member in members.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                    let key = String(decoding: member.key, as: UTF8.self)
                    if let found = walk(member.value, path.isEmpty ? key : path + "." + key) { return found }
                }
                return nil
            case .array(let elements):
                for (index, element) in elements.enumerated() {
                    if let found = walk(element, "\(path)[\(index)]") { return found }
                }
                return nil
            }
        }
        return walk(value, "")
    }

    /// Whether the bytes `null` occur in `bytes`, in a literal or inside a string (``PrintedJSON/occurs(_:in:)``).
    static func mentionsNull(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { text in nullBytes.withUnsafeBufferPointer { PrintedJSON.occurs($0, in: text) } }
    }

    private static let nullBytes = Array("null".utf8)

    private static func name(of type: any SwiftProtobuf.Message.Type) -> String {
        type.protoMessageName.split(separator: ".").last.map(String.init) ?? type.protoMessageName
    }

    private static func describe(_ error: SwiftProtobuf.JSONDecodingError) -> String {
        switch error {
        case .unknownField(let name): "unknown field '\(name)'"
        case .unrecognizedEnumValue: "an enum value is not one of its names"
        case .malformedNumber, .numberRange: "a number is malformed or out of range"
        case .malformedString: "a string is malformed"
        case .missingFieldNames: "a field has no name"
        case .truncated: "it ends too soon"
        default: "it is not the JSON this operation takes"
        }
    }
}
