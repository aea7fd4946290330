public import Foundation

/// One request the ``StubHTTPServer`` received, as recorded for assertions.
public struct StubRequest: Sendable {
    /// "GET", "POST" …
    public let method: String
    /// Path and query exactly as sent, e.g. "/v2/shopping/flight-offers?adults=1".
    public let uri: String
    /// Header fields in arrival order.
    public let headers: [(name: String, value: String)]
    /// The body bytes (empty for none).
    public let body: Data

    /// Creates a record.
    public init(method: String, uri: String, headers: [(name: String, value: String)], body: Data) {
        self.method = method
        self.uri = uri
        self.headers = headers
        self.body = body
    }

    /// The path without the query.
    public var path: String { String(uri.prefix { $0 != "?" }) }

    /// Query items, percent-decoded, in order ("+" is not treated as a space).
    public var queryItems: [(name: String, value: String)] {
        guard let start = uri.firstIndex(of: "?") else { return [] }
        return Self.formItems(String(uri[uri.index(after: start)...]))
    }

    /// The first value of query item `name`.
    public func query(_ name: String) -> String? { queryItems.first { $0.name == name }?.value }

    /// The first value of header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The body as UTF-8 text.
    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// A form-encoded body (`a=1&b=2`) as items, percent-decoded, "+" as space.
    public var formItems: [(name: String, value: String)] {
        Self.formItems(bodyText.replacingOccurrences(of: "+", with: " "))
    }

    private static func formItems(_ text: String) -> [(name: String, value: String)] {
        text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let value = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : ""
            return (name, value)
        }
    }
}

/// What the ``StubHTTPServer`` answers to one request.
public struct StubResponse: Sendable {
    /// How the answer is delivered.
    public enum Delivery: Sendable, Equatable {
        /// Head and body, after ``StubResponse/delay``.
        case complete
        /// Nothing at all: the request waits until the client gives up or the server stops.
        case never
        /// The head only; the body never comes.
        case headOnly
    }

    /// HTTP status code.
    public var status: Int
    /// Extra header fields (Content-Length is added).
    public var headers: [(name: String, value: String)]
    /// The body bytes.
    public var body: Data
    /// Wait this long before answering (scheduled on the event loop, nothing blocks).
    public var delay: Duration
    /// How the answer is delivered.
    public var delivery: Delivery

    /// A response.
    public init(
        status: Int = 200, headers: [(name: String, value: String)] = [], body: Data = Data(),
        delay: Duration = .zero, delivery: Delivery = .complete
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.delivery = delivery
    }

    /// A JSON body with `Content-Type: application/json`.
    public static func json(_ text: String, status: Int = 200, headers: [(name: String, value: String)] = []) -> StubResponse {
        StubResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: Data(text.utf8))
    }

    /// A JSON body read from `url` (e.g. a test fixture).
    public static func json(contentsOf url: URL, status: Int = 200, headers: [(name: String, value: String)] = []) throws -> StubResponse {
        StubResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: try Data(contentsOf: url))
    }

    /// A request that is never answered (for timeout tests).
    public static let never = StubResponse(delivery: .never)

    /// Headers sent, then silence (for body-timeout tests).
    public static let headOnly = StubResponse(delivery: .headOnly)

    /// The answer to a request nothing was scripted for.
    static func unscripted(_ request: StubRequest) -> StubResponse {
        StubResponse(status: 404, headers: [("Content-Type", "text/plain")], body: Data("no stub for \(request.method) \(request.path)\n".utf8))
    }
}
