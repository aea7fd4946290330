public import AsyncHTTPClient
public import FareLensMessages
public import FareLensServiceKit
import Foundation
import NIOCore

/// Delivers alerts as Standard Webhooks: one signed JSON POST per attempt
/// (docs/webhooks.md is the receiver's specification).
///
/// Each attempt sends `webhook-id` = the alert's id (the same on every
/// retry, the receiver's idempotency key), `webhook-timestamp` = this
/// attempt's Unix seconds, and `webhook-signature` with one `v1,…` per
/// configured secret. The answer is classified for the outbox:
///
/// | answer | outcome |
/// | --- | --- |
/// | 2xx | delivered |
/// | 410 | endpoint gone |
/// | 408, 429, 5xx | retry (with the `Retry-After`, delta-seconds or HTTP-date) |
/// | 3xx (not followed), other 4xx, anything else | failed |
/// | refused connection, no connection in time, TLS failure (nothing left) | retry |
/// | timeout after sending, connection closed or reset before an answer | uncertain (retried; it may have arrived) |
///
/// The HTTP client is ``sharedClient`` unless another is injected; the
/// shared one lives as long as the process and is never shut down, so the
/// channel has nothing to close. A caller that injects its own client owns
/// its shutdown. Cancelling the delivering task abandons the attempt (a
/// retry outcome), which is how a draining service stops it.
public struct WebhookChannel: AlertDeliveryChannel {
    public var channel: AlertChannel { .webhook }

    /// The endpoint, secrets and timeout.
    public let settings: WebhookSettings
    private let client: HTTPClient
    /// Real time: `webhook-timestamp` and an HTTP-date `Retry-After` are the wire's, not the business clock's.
    private let transport: TransportClock
    private let userAgent: String

    /// Response bodies are read up to this size (then the connection is dropped).
    static let maxDrainedBytes = 64 << 10

    /// The client every webhook channel shares by default, for the life of
    /// the process: redirects are not followed (a 3xx is a failure, and the
    /// signature never travels to another host) and a refused connection
    /// fails at once instead of being retried until the timeout.
    public static let sharedClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.redirectConfiguration = .disallow
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// A channel posting to `settings.url`.
    ///
    /// - Parameters:
    ///   - client: the HTTP client (default ``sharedClient``; an injected one is the caller's to shut down).
    ///   - transport: the real clock each attempt's `webhook-timestamp` and an HTTP-date `Retry-After`
    ///     are read from (never the business clock: a receiver rejects a timestamp 5 minutes off its own).
    public init(settings: WebhookSettings, client: HTTPClient = WebhookChannel.sharedClient, transport: TransportClock = .system) {
        self.settings = settings
        self.client = client
        self.transport = transport
        self.userAgent = "FareLens/\(FareLensVersion.current)"
    }

    /// One signed POST of `alert.body`, classified; never throws.
    public func deliver(_ alert: OutboundAlert) async -> DeliveryOutcome {
        guard !alert.alertID.isEmpty, !alert.alertID.contains(".") else {
            return .failed(reason: "alert id is empty or contains '.', which the signed content cannot hold")
        }
        let timestamp = Int64(transport.now().timeIntervalSince1970.rounded(.down))
        var request = HTTPClientRequest(url: settings.url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "user-agent", value: userAgent)
        request.headers.add(name: WebhookSignature.idHeader, value: alert.alertID)
        request.headers.add(name: WebhookSignature.timestampHeader, value: String(timestamp))
        request.headers.add(name: WebhookSignature.signatureHeader, value: WebhookSignature.header(
            id: alert.alertID, timestamp: timestamp, body: alert.body, secrets: settings.secrets))
        request.body = .bytes(ByteBuffer(bytes: alert.body))

        let timeout = settings.timeout
        let deadline = ContinuousClock.now + timeout
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, deadline: .now() + TimeAmount(timeout))
        } catch {
            let reason = reason(for: error, timeout: timeout)
            return Self.mayHaveArrived(error) ? .uncertain(reason: reason + "; the receiver may have it") : .retry(reason: reason, retryAfter: nil)
        }
        let outcome = classify(status: Int(response.status.code), retryAfter: response.headers.first(name: "retry-after"))
        await Self.drain(response.body, until: deadline)
        return outcome
    }

    /// The outcome an HTTP status stands for.
    func classify(status: Int, retryAfter: String?) -> DeliveryOutcome {
        let reason = "HTTP \(status)"
        switch status {
        case 200 ..< 300: return .delivered
        case 410: return .endpointGone(reason: reason)
        case 408, 429, 500 ..< 600: return .retry(reason: reason, retryAfter: retryAfter.flatMap { Self.retryAfter($0, now: transport.now()) })
        case 300 ..< 400: return .failed(reason: "\(reason) (redirects are not followed: configure the final URL)")
        default: return .failed(reason: reason)
        }
    }

    /// A `Retry-After` value, delta-seconds or an HTTP-date (measured from
    /// `now`; a date in the past is zero); nil when it is neither.
    static func retryAfter(_ text: String, now: Date) -> Duration? {
        let value = text.trimmingCharacters(in: .whitespaces)
        if !value.isEmpty, value.utf8.allSatisfy({ (UInt8(ascii: "0") ... UInt8(ascii: "9")).contains($0) }) {
            return .seconds(Int64(value) ?? Int64.max / 1_000_000_000_000)
        }
        // IMF-fixdate, and the obsolete RFC 850 and asctime forms RFC 9110 asks recipients to accept.
        for format in ["EEE, dd MMM yyyy HH:mm:ss 'GMT'", "EEEE, dd-MMM-yy HH:mm:ss 'GMT'", "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: value) {
                return .seconds(max(0, Int64(date.timeIntervalSince(now).rounded(.up))))
            }
        }
        return nil
    }

    /// Reads and discards a response body (so the connection can be reused),
    /// up to ``maxDrainedBytes`` and until `deadline`; gives up silently.
    private static func drain(_ body: HTTPClientResponse.Body, until deadline: ContinuousClock.Instant) async {
        let remaining = deadline - ContinuousClock.now
        guard remaining > .zero else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var count = 0
                do {
                    for try await chunk in body {
                        count += chunk.readableBytes
                        if count > maxDrainedBytes { return }
                    }
                } catch {}
            }
            group.addTask {
                try? await Task.sleep(for: remaining)  // safe: bounds reading a body nobody needs, raced against the read
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// One line saying why an attempt got no answer; never a secret or the URL.
    /// Whether a failed request may have reached the receiver: it timed out
    /// waiting for the answer, or the connection closed or was reset after
    /// the request was written. A refused connection, a connection or TLS
    /// handshake that never completed, or no connection from the pool in
    /// time, sent nothing.
    static func mayHaveArrived(_ error: any Error) -> Bool {
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout: return false
            case .deadlineExceeded, .readTimeout, .writeTimeout, .remoteConnectionClosed, .cancelled: return true
            default: return false
            }
        }
        let code = (error as? IOError)?.errnoCode ?? errnoCode(in: error)
        return code == ECONNRESET || code == EPIPE
    }

    private func reason(for error: any Error, timeout: Duration) -> String {
        if error is CancellationError { return "cancelled before an answer" }
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout:
                return "timed out after \(Self.text(timeout))"
            case .cancelled: return "cancelled before an answer"
            case .remoteConnectionClosed: return "connection closed by the receiver before an answer"
            default: return "HTTP client error: \(error)"
            }
        }
        if let error = error as? IOError { return Self.text(errno: error.errnoCode) }
        if let code = Self.errnoCode(in: error) { return Self.text(errno: code) }
        return scrub("connection failed: \(String(describing: error))")
    }

    /// "connection refused", "connection reset", or the system's words.
    private static func text(errno code: Int32) -> String {
        switch code {
        case ECONNREFUSED: "connection refused"
        case ECONNRESET: "connection reset"
        case ETIMEDOUT: "connection timed out"
        default: "connection failed: \(String(cString: strerror(code)))"
        }
    }

    /// The errno an error wrapping an `IOError` carries (NIO's connection
    /// errors keep one per address tried), if any.
    private static func errnoCode(in error: any Error) -> Int32? {
        for child in Mirror(reflecting: error).children {
            if let io = child.value as? IOError { return io.errnoCode }
            if let list = child.value as? [any Error], let code = list.lazy.compactMap({ errnoCode(in: $0) }).first { return code }
            if let nested = child.value as? any Error, let code = errnoCode(in: nested) { return code }
        }
        return nil
    }

    /// One line of at most 160 characters, without the URL (it may carry credentials).
    private func scrub(_ text: String) -> String {
        var line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        line = line.replacingOccurrences(of: settings.url, with: "<webhook url>")
        return line.count > 160 ? String(line.prefix(160)) + "…" : line
    }

    /// "15 s", or "300 ms" below a second or for fractions.
    static func text(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        if attoseconds == 0 { return "\(seconds) s" }
        return "\(seconds * 1000 + attoseconds / 1_000_000_000_000_000) ms"
    }
}
