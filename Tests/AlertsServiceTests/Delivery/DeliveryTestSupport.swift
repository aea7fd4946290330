@testable import AlertsService
import Crypto
import FareLensMessages
import FareLensRuntime
import FareLensServiceKit
import FareLensTesting
import Foundation
import Logging

/// Fixed values for the delivery tests; docs/webhooks.md uses the same example.
enum DeliveryFixtures {
    /// The documentation's example secret: bytes 0 … 31.
    static let secretText = "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
    /// A second secret (bytes 100 … 131), the "old" one of a rotation.
    static let oldSecretText = "whsec_ZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXp7fH1+f4CBgoM="
    /// The base64 parts alone: none may ever appear in text the code produces.
    static let secretMaterial = [String(secretText.dropFirst(6)), String(oldSecretText.dropFirst(6))]

    static let exampleID = "alert_4f1c9a2e7b"
    static let exampleTimestamp: Int64 = 1_767_225_600  // 2026-01-01T00:00:00Z
    static let exampleBody = #"{"type":"alert.price_drop","timestamp":"2026-01-01T00:00:00Z","data":{"alert_id":"alert_4f1c9a2e7b"}}"#
    /// Computed with Python's hmac module (see docs/webhooks.md).
    static let exampleSignature = "v1,L9tZ2+Ur61Lr8uuY6aBy/MxS76GYx4w/ofr4If2IQGY="
    static let exampleOldSignature = "v1,wZiPqLcp/p8VL15Upp6evhztgDirdyhughVqAyJOa80="

    static func alert(id: String = exampleID, attempt: Int = 1, body: String = exampleBody) -> OutboundAlert {
        OutboundAlert(alertID: id, userID: "user-1", kind: .priceDrop, body: Data(body.utf8), attempt: attempt)
    }

    static func secrets(_ texts: [String] = [secretText]) throws -> [WebhookSecret] {
        try texts.map { try WebhookSecret($0) }
    }
}

/// What a third party writes to check a FareLens webhook, from docs/webhooks.md
/// alone: it shares no code with the channel's signing.
struct ThirdPartyReceiver {
    /// The key, decoded here from the `whsec_` text.
    let key: SymmetricKey

    init(secret: String) throws {
        struct NotASecret: Error {}
        guard secret.hasPrefix("whsec_"), let bytes = Data(base64Encoded: String(secret.dropFirst(6))) else { throw NotASecret() }
        key = SymmetricKey(data: bytes)
    }

    enum Verdict: Equatable {
        case accepted
        case missingHeader(String)
        case staleTimestamp
        case badSignature
    }

    /// Checks the raw request as received: headers present, timestamp
    /// within five minutes of `now`, one `v1` signature equal (constant
    /// time) to HMAC-SHA256 over `id.timestamp.` + raw body bytes.
    func check(_ request: StubRequest, now: Date) -> Verdict {
        guard let id = request.header("webhook-id") else { return .missingHeader("webhook-id") }
        guard let timestamp = request.header("webhook-timestamp") else { return .missingHeader("webhook-timestamp") }
        guard let signatures = request.header("webhook-signature") else { return .missingHeader("webhook-signature") }
        guard let seconds = Double(timestamp), abs(now.timeIntervalSince1970 - seconds) <= 300 else { return .staleTimestamp }
        var content = Data(id.utf8)
        content.append(UInt8(ascii: "."))
        content.append(contentsOf: timestamp.utf8)
        content.append(UInt8(ascii: "."))
        content.append(request.body)
        for item in signatures.split(separator: " ") where item.hasPrefix("v1,") {
            guard let mac = Data(base64Encoded: String(item.dropFirst(3))) else { continue }
            if HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: content, using: key) { return .accepted }
        }
        return .badSignature
    }
}


/// Runs `body` against a started stub receiver (URL of path `/hook`) and always stops it.
func withReceiver<Result: Sendable>(
    _ body: @escaping @Sendable (StubHTTPServer, String) async throws -> Result
) async throws -> Result {
    let server = StubHTTPServer()
    let baseURL = try await server.start()
    do {
        let result = try await withTimeLimit("the webhook test", limit: .seconds(20)) { try await body(server, baseURL + "/hook") }
        try await server.stop()
        return result
    } catch {
        try? await server.stop()
        throw error
    }
}

/// A channel posting to `url` with the example secret, its transport clock at `clock`.
func webhookChannel(
    _ url: String, secrets: [String] = [DeliveryFixtures.secretText], timeout: Duration = .seconds(5),
    clock: Locked<Date> = Locked(Date())
) throws -> WebhookChannel {
    let settings = WebhookSettings(url: url, secrets: try DeliveryFixtures.secrets(secrets), timeout: timeout)
    return WebhookChannel(settings: settings, transport: TransportClock { clock.get() })
}

extension DeliveryOutcome {
    /// The reason, whatever the case (nil for delivered).
    var reason: String? {
        switch self {
        case .delivered: nil
        case .retry(let reason, _), .uncertain(let reason), .failed(let reason), .endpointGone(let reason), .deviceGone(let reason, _): reason
        }
    }

    var isRetry: Bool {
        if case .retry = self { return true }
        return false
    }

    var isUncertain: Bool {
        if case .uncertain = self { return true }
        return false
    }

    var retryAfter: Duration? {
        if case .retry(_, let retryAfter) = self { return retryAfter }
        return nil
    }
}

/// Keeps every log entry for assertions (swift-log's InMemoryLogging is not a
/// dependency of this target).
struct CapturedLogs: Sendable {
    struct Entry: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: Logger.Metadata
    }

    private let storage = Locked<[Entry]>([])
    var entries: [Entry] { storage.get() }

    /// A logger (level trace) whose entries land here.
    func logger(_ label: String = "test") -> Logger {
        var logger = Logger(label: label) { _ in Handler(storage: storage) }
        logger.logLevel = .trace
        return logger
    }

    private struct Handler: LogHandler {
        let storage: Locked<[Entry]>
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            var all = metadata
            all.merge(event.metadata ?? [:]) { $1 }
            storage.update { $0.append(Entry(level: event.level, message: event.message.description, metadata: all)) }
        }
    }
}
