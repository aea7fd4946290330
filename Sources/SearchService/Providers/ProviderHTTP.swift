public import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The HTTP client the live providers share.
public enum LiveProviderClient {
    /// One client for every live provider, for the life of the process.
    ///
    /// A refused connection fails at once instead of being retried with
    /// back-off until the deadline, so the engine can fall back to the next
    /// provider; redirects are not followed, so credentials never travel to
    /// another host.
    public static let shared: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.redirectConfiguration = .disallow
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()
}

/// A complete HTTP answer, any status.
struct ProviderResponse: Sendable {
    let status: Int
    let headers: HTTPHeaders
    let body: Data
}

/// HTTP exchanges for one provider: every failure becomes a
/// ``ProviderError``, and no error text ever holds one of `secrets`.
struct ProviderHTTP: Sendable {
    /// The provider name errors carry.
    let provider: String
    let client: HTTPClient
    /// Bounds one whole exchange, body included.
    let timeout: Duration
    /// Credentials and tokens: scrubbed from any text that reaches an error.
    let secrets: [String]

    /// Larger bodies are refused as malformed (a flight search answer is well below).
    static let maxBodyBytes = 8 << 20

    /// How long one exchange may take: ``timeout``, or less when the
    /// request being answered has less time left.
    func limit(deadline: ContinuousClock.Instant?) -> Duration {
        guard let deadline else { return timeout }
        return min(timeout, deadline - ContinuousClock.now)
    }

    /// Sends `request` and reads the whole body within ``limit(deadline:)``.
    ///
    /// - Throws: ``ProviderError`` `timeout` (also when the deadline has
    ///   already passed: nothing is sent) or `transport`; statuses are not checked here.
    func exchange(_ request: HTTPClientRequest, deadline: ContinuousClock.Instant? = nil) async throws(ProviderError) -> ProviderResponse {
        let limit = limit(deadline: deadline)
        let provider = provider
        guard limit > .zero else { throw .timeout(provider, after: .zero) }
        // The client's deadline stops waiting for the head only, so a server
        // that sends headers and then stalls is bounded by this race.
        let outcome = await withTaskGroup(of: Result<ProviderResponse, ProviderError>?.self) { group -> Result<ProviderResponse, ProviderError>? in
            group.addTask { await attempt(request, limit: limit) }
            group.addTask {
                do { try await Task.sleep(for: limit) } catch { return nil }  // safe: the provider timeout, raced against the exchange
                return .failure(.timeout(provider, after: limit))
            }
            defer { group.cancelAll() }
            while let next = await group.next() {
                if let next { return next }
            }
            return nil
        }
        return try (outcome ?? Result.failure(ProviderError.transport(provider, "request cancelled"))).get()
    }

    /// Throws the error a non-2xx status stands for.
    func requireSuccess(_ response: ProviderResponse) throws(ProviderError) {
        switch response.status {
        case 200 ..< 300: return
        case 401, 403: throw .authentication(provider, "credentials refused (HTTP \(response.status))")
        case 429: throw .rateLimited(provider, retryAfter: Self.retryAfter(response.headers))
        case 500 ..< 600: throw .server(provider, status: response.status)
        default: throw .badStatus(provider, status: response.status)
        }
    }

    /// Decodes `body`; failures name the JSON path, never a value.
    func decode<Value: Decodable>(_ type: Value.Type, from body: Data) throws(ProviderError) -> Value {
        do {
            return try JSONDecoder().decode(type, from: body)
        } catch let error as DecodingError {
            throw .malformedResponse(provider, Self.reason(error))
        } catch {
            throw .malformedResponse(provider, "not JSON")
        }
    }

    /// A GET (or other) request to `baseURL + path` with escaped query items.
    static func request(
        _ method: HTTPMethod = .GET, baseURL: String, path: String,
        query: [(String, String)] = [], headers: [(String, String)] = []
    ) -> HTTPClientRequest {
        let queryText = query.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
        var request = HTTPClientRequest(url: baseURL + path + (queryText.isEmpty ? "" : "?" + queryText))
        request.method = method
        request.headers.add(name: "Accept", value: "application/json")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        return request
    }

    /// Percent-escapes everything but RFC 3986 unreserved characters.
    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// `Retry-After` as whole seconds (the HTTP-date form is measured from now).
    static func retryAfter(_ headers: HTTPHeaders) -> Duration? {
        guard let text = headers.first(name: "Retry-After")?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        if let seconds = Int(text), seconds >= 0 { return .seconds(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: text) else { return nil }
        return .seconds(max(0, Int(date.timeIntervalSinceNow.rounded(.up))))
    }

    private func attempt(_ request: HTTPClientRequest, limit: Duration) async -> Result<ProviderResponse, ProviderError> {
        do {
            let response = try await client.execute(request, deadline: .now() + TimeAmount(limit))
            let body = try await response.body.collect(upTo: Self.maxBodyBytes)
            return .success(ProviderResponse(status: Int(response.status.code), headers: response.headers, body: Data(body.readableBytesView)))
        } catch is NIOTooManyBytesError {
            return .failure(.malformedResponse(provider, "body larger than \(Self.maxBodyBytes >> 20) MiB"))
        } catch {
            return .failure(classify(error, limit: limit))
        }
    }

    private func classify(_ error: any Error, limit: Duration) -> ProviderError {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout: return .timeout(provider, after: limit)
            case .cancelled: return .transport(provider, "request cancelled")
            default: break
            }
        }
        if error is CancellationError { return .transport(provider, "request cancelled") }
        if let error = error as? IOError {
            return .transport(provider, "connection failed: \(String(cString: strerror(error.errnoCode)))")
        }
        return .transport(provider, scrub("connection failed: \(String(describing: error))"))
    }

    /// One line, at most 160 characters, with every secret replaced by "***".
    func scrub(_ text: String) -> String {
        var line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        for secret in secrets where !secret.isEmpty {
            line = line.replacingOccurrences(of: secret, with: "***")
        }
        return line.count > 160 ? String(line.prefix(160)) + "…" : line
    }

    private static func reason(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context): return "missing \(path(context.codingPath + [key]))"
        case .typeMismatch(_, let context): return "wrong type at \(path(context.codingPath))"
        case .valueNotFound(_, let context): return "null at \(path(context.codingPath))"
        case .dataCorrupted(let context): return context.codingPath.isEmpty ? "not JSON" : "invalid value at \(path(context.codingPath))"
        @unknown default: return "undecodable"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        let text = keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return text.isEmpty ? "top level" : String(text.drop { $0 == "." })
    }
}
