import FareLensBus
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// The outermost middleware: gives every response a request id, turns any
/// error into a problem (a framework error keeps its status; anything else
/// is a 500 that says nothing of internals), and writes the access log
/// (method, path without the query, status, time; never a header or a body,
/// so no token or password reaches a log).
struct ProblemMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let logger: Logger
    let metrics: GatewayMetrics
    /// The routes, to tell a known path with another method (405) from an unknown one (404).
    let routes: RouteCatalogBox

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let requestID = request.headers[.requestID].flatMap { Self.acceptable($0) } ?? RequestID.random()
        let trace = request.headers[.traceparent].flatMap(RequestTrace.traceID(fromTraceparent:)) ?? TraceID.random()
        var response: Response
        do {
            response = try await RequestTrace.$current.withValue(trace) { try await next(request, context) }
        } catch let problem as Problem {
            response = try problem.response(from: request, context: context)
        } catch let error as HTTPError {
            let allowed = routes.get().methods(at: request.uri.path)
            if error.status == .notFound || error.status == .methodNotAllowed, !allowed.isEmpty {
                var headers = HTTPFields()
                headers[.allow] = allowed.joined(separator: ", ")
                response = try Problem(.methodNotAllowed, code: "method-not-allowed", "\(request.uri.path) takes \(allowed.joined(separator: ", ")), not \(request.method)", headers: headers)
                    .response(from: request, context: context)
            } else {
                let code = error.status == .notFound ? "no-such-route" : "http-\(error.status.code)"
                let message = error.status == .notFound ? "no operation at \(request.method) \(request.uri.path) (see /openapi.yaml)" : error.status.reasonPhrase
                response = try Problem(error.status, code: code, message).response(from: request, context: context)
            }
        } catch {
            logger.error("request failed unexpectedly", metadata: ["request-id": "\(requestID)", "error-type": "\(type(of: error))"])
            response = try Problem(.internalServerError, code: "internal", "the request could not be completed").response(from: request, context: context)
        }
        response.headers[.requestID] = requestID
        response.headers[.traceID] = trace.description
        let elapsed = ContinuousClock.now - started
        let route = context.endpointPath ?? "unmatched"
        metrics.record(method: request.method.rawValue, route: route, status: response.status.code, elapsed: elapsed)
        logger.info(
            "http",
            metadata: [
                "request-id": "\(requestID)", "trace": "\(trace)", "method": "\(request.method)", "path": "\(request.uri.path)", "status": "\(response.status.code)",
                "ms": "\(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1e3)",
            ])
        return response
    }

    /// A client's request id if it is short and printable; otherwise one is made.
    private static func acceptable(_ id: String) -> String? {
        id.count <= 128 && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".") } ? id : nil
    }
}

extension HTTPField.Name {
    /// `X-Request-ID`: the client's, or one the gateway made; in every response and the access log.
    static let requestID = Self("X-Request-ID")!
    /// W3C trace context: the client's trace, carried into the bus.
    static let traceparent = Self("traceparent")!
    /// `X-Trace-ID`: the bus trace id the request ran under (the services' logs name it).
    static let traceID = Self("X-Trace-ID")!
    /// The IETF draft's combined header: `limit=60, remaining=12, reset=24`.
    static let rateLimit = Self("RateLimit")!
}

/// Verifies the bearer access token of every request behind it, then
/// spends the request's cost from its user's bucket (docs/api.md).
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let keys: SessionKeys
    let settings: GatewaySettings
    let limiter: RateLimiter
    let metrics: GatewayMetrics
    let now: @Sendable () -> Date

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else {
            throw Problem.unauthorized("missing-token", "send 'Authorization: Bearer <access token>'")
        }
        guard header.utf8.count > 7, header.prefix(7).lowercased() == "bearer " else {
            throw Problem.unauthorized("missing-token", "the Authorization header must be 'Bearer <access token>'")
        }
        // Spaces and tabs around the token are not part of it (trimmed without Foundation's NSString path: this runs on every request).
        var trimmed = header.dropFirst(7)
        while let first = trimmed.first, first == " " || first == "\t" { trimmed = trimmed.dropFirst() }
        while let last = trimmed.last, last == " " || last == "\t" { trimmed = trimmed.dropLast() }
        let token = String(trimmed)
        var context = context
        do {
            context.session = try await keys.verify(token, issuer: settings.issuer, audience: settings.audience, at: now())
        } catch {
            metrics.tokenRejected(error.rawValue)
            throw Problem.unauthorized("invalid-token", "the access token is not valid (\(error.rawValue)); refresh the session or sign in again")
        }
        let cost = Self.cost(of: request)
        let decision = limiter.spend(cost, for: context.session!.sub.value)
        guard decision.allowed else {
            metrics.rateLimited("user")
            throw Problem.rateLimited(decision, "this account is making requests too fast; retry after \(decision.retryAfterSeconds) s")
        }
        var response = try await next(request, context)
        response.headers[.rateLimit] = "limit=\(decision.limit), remaining=\(decision.remaining), reset=\(decision.resetSeconds)"
        return response
    }

    /// A live search costs 10, a write 2, a read 1.
    static func cost(of request: Request) -> Double {
        if request.uri.path.hasPrefix("/v1/search") { return 10 }
        return request.method == .get || request.method == .head ? 1 : 2
    }
}

extension Problem {
    /// 429 with `Retry-After` and `RateLimit`.
    static func rateLimited(_ decision: RateLimiter.Decision, _ message: String, code: String = "rate-limited") -> Problem {
        var headers = HTTPFields()
        headers[.retryAfter] = "\(decision.retryAfterSeconds)"
        headers[.rateLimit] = "limit=\(decision.limit), remaining=\(decision.remaining), reset=\(decision.resetSeconds)"
        return Problem(.tooManyRequests, code: code, message, headers: headers)
    }
}
