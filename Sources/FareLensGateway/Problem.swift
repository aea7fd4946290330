import FareLensBus
import Foundation
import HTTPTypes
import Hummingbird
import SwiftProtobuf

/// An RFC 9457 problem (`application/problem+json`): the HTTP status, the
/// service's error code, a human message and the field at fault. Every error
/// the gateway answers is one; none carries internals (docs/api.md, "Errors").
struct Problem: Error, HTTPResponseError, Sendable {
    let status: HTTPResponse.Status
    /// A stable code: the service's (`email-taken`, `unknown-airport`) or the gateway's own (`invalid-token`, `rate-limited`).
    let code: String
    let message: String
    let field: String?
    /// Extra headers: `Retry-After`, `RateLimit`, `WWW-Authenticate`.
    var headers: HTTPFields = [:]

    init(_ status: HTTPResponse.Status, code: String, _ message: String, field: String? = nil, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.headers = headers
    }

    /// 401 with the challenge RFC 6750 asks for.
    static func unauthorized(_ code: String, _ message: String, field: String? = nil) -> Problem {
        var headers = HTTPFields()
        headers[.wwwAuthenticate] = "Bearer realm=\"farelens\", error=\"invalid_token\", error_description=\"\(code)\""
        return Problem(.unauthorized, code: code, message, field: field, headers: headers)
    }

    static func badRequest(_ code: String, _ message: String, field: String? = nil) -> Problem {
        Problem(.badRequest, code: code, message, field: field)
    }

    static func notFound(_ message: String) -> Problem {
        Problem(.notFound, code: "not-found", message)
    }

    /// 503 with `Retry-After`: a service could not be reached in time.
    static func unavailable(_ message: String, code: String = "service-unavailable", field: String? = nil, retryAfterSeconds: Int = 1) -> Problem {
        var headers = HTTPFields()
        headers[.retryAfter] = "\(retryAfterSeconds)"
        return Problem(.serviceUnavailable, code: code, message, field: field, headers: headers)
    }

    func response(from request: Request, context: some Hummingbird.RequestContext) throws -> Response {
        var fields = headers
        fields[.contentType] = "application/problem+json"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: json(instance: request.uri.path))))
    }

    /// The problem document; `instance` is the request's path when there is one.
    ///
    /// Keys in byte order, `status` (a number in RFC 9457) last. Each value
    /// is a JSON string as SwiftProtobuf escapes one: `JSONSerialization`
    /// with sorted keys sorted them through ICU and bridged to
    /// `NSDictionary`, a third of the node's CPU when it answered 429s under
    /// load (docs/performance.md, "Gateway").
    func json(instance: String? = nil) -> String {
        let members: [(String, String?)] = [
            ("code", code), ("detail", message), ("field", field), ("instance", instance),
            ("title", status.reasonPhrase), ("type", "https://farelens.app/problems/\(code)"),
        ]
        var json = "{"
        for case let (key, value?) in members {
            json += "\"\(key)\":" + Self.quoted(value) + ","
        }
        return json + "\"status\":\(status.code)}"
    }

    /// `text` as a JSON string literal (quoted, escaped).
    private static func quoted(_ text: String) -> String {
        (try? Google_Protobuf_Value(stringValue: text).jsonString()) ?? "\"\""
    }

    /// The problem document without an instance.
    var json: String { json() }
}

extension Problem {
    /// What a bus error means to an app: the service's code with its status,
    /// a service away as 503, never a 500 with its text.
    static func from(_ error: BusError) -> Problem {
        switch error.kind {
        case .timeout, .serviceUnavailable, .overloaded, .cancelled:
            return .unavailable("the service is busy or away; try again shortly")
        case .remote:
            let code = error.remoteCode ?? "internal"
            let field = error.field
            switch code {
            case "not-found", "unknown-offer":
                return Problem(.notFound, code: code, error.message, field: field)
            case "unknown-user":
                // User ids come from the token only: an unknown one is a deleted account's session.
                return .unauthorized("user-gone", "the account this token was issued for no longer exists")
            case "invalid-cursor":
                return .badRequest("invalid-query", error.message, field: field)
            case "invalid-device-token":
                return .badRequest(code, error.message, field: field)
            case "invalid-credentials", "invalid-refresh-token", "refresh-token-reused":
                return .unauthorized(code, error.message, field: field)
            case "malformed-signed-payload":
                return .badRequest(code, error.message, field: field)
            case "untrusted-signature", "wrong-bundle-id", "wrong-environment", "wrong-app-apple-id":
                return Problem(.forbidden, code: code, error.message, field: field)
            case "email-taken", "watchlist-exists", "watchlist-limit", "airport-limit", "watchlist-inactive", "too-many-devices", "app-account-token-mismatch":
                return Problem(.conflict, code: code, error.message, field: field)
            case "airports-unavailable", "storage", "no-fares-available", "quota-exhausted", "appstore-not-configured":
                return .unavailable(error.message, code: code, field: field)
            case "internal":
                return Problem(.internalServerError, code: "internal", "the request could not be completed")
            default:
                return Problem(.unprocessableContent, code: code, error.message, field: field)
            }
        case .badMessage, .forbidden:
            return Problem(.internalServerError, code: "internal", "the request could not be completed")
        default:
            return Problem(.internalServerError, code: "internal", "the request could not be completed")
        }
    }
}
