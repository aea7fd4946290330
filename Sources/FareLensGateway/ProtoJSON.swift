import FareLensMessages
import Foundation
import Hummingbird
import NIOCore
import SwiftProtobuf

/// The API's bodies are the bus messages in protobuf's JSON mapping
/// (snake_case field names, enums by name, 64-bit integers as strings),
/// every field printed even at its default (docs/api.md, "Bodies").
enum ProtoJSON {
    /// A 2xx response with `message` as its JSON body.
    static func response(_ message: some SwiftProtobuf.Message, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
        let text: String
        do {
            text = try ProtoJSONWithDefaults.fareLens.text(of: message)
        } catch {
            throw Problem(.internalServerError, code: "internal", "the response could not be written")
        }
        var fields = headers
        fields[.contentType] = "application/json"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// The request's JSON body as `M`: 415 if it is not JSON, 413 past the
    /// limit, 400 naming what does not parse (an unknown field too).
    static func decode<M: SwiftProtobuf.Message>(_ type: M.Type, from request: Request, context: GatewayRequestContext) async throws -> M {
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
        var options = JSONDecodingOptions()
        options.ignoreUnknownFields = false
        do {
            return try M(jsonUTF8Bytes: Array(buffer.readableBytesView), options: options)
        } catch let error as SwiftProtobuf.JSONDecodingError {
            throw Problem.badRequest("invalid-body", "the body is not a valid \(Self.name(of: M.self)): \(Self.describe(error))")
        } catch {
            throw Problem.badRequest("invalid-body", "the body is not a valid \(Self.name(of: M.self))")
        }
    }

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
