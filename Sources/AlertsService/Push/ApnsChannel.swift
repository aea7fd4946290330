public import AsyncHTTPClient
import Crypto
public import FareLensMessages
public import FareLensServiceKit
import Foundation
import NIOCore
import NIOHTTP2
import NIOSSL

/// Pushes alerts to phones through Apple's Push Notification service: one
/// HTTP/2 POST to `/3/device/<token>` per alert and device, over one TLS
/// connection multiplexing many streams (AsyncHTTPClient's HTTP/2), with a
/// shared provider token (``ApnsProviderToken``). docs/push.md is the
/// app team's and the operator's reference.
///
/// Headers: `apns-topic` (the bundle id), `apns-push-type` and
/// `apns-priority` (`alert` and 10 for alerts, `background` and 5 for
/// silent watchlist updates, as APNs requires), `apns-expiration` (when the
/// push stops being worth showing), `apns-collapse-id` (the route: a newer
/// drop replaces an older one on the lock screen) and `apns-id`, a UUID
/// derived from the alert id and the device token
/// (``apnsID(alertID:token:)``), the same on every retry.
///
/// | APNs answers | outcome |
/// | --- | --- |
/// | 200 | delivered |
/// | 410 Unregistered; 400 BadDeviceToken, DeviceTokenNotForTopic | device gone (removed; 410's timestamp honoured) |
/// | 403 ExpiredProviderToken | a new token (at most once per 20 minutes) and one more try; else retry |
/// | 429, 500, 503 | retry (with `Retry-After` when sent) |
/// | other 4xx (InvalidProviderToken, TopicDisallowed, PayloadTooLarge …) | failed, with APNs' reason |
/// | no connection, TLS failure, no connection in time | retry |
/// | timeout after sending, stream reset, connection closed before the answer | uncertain (it may have arrived) |
public struct ApnsChannel: AlertDeliveryChannel {
    public var channel: AlertChannel { .push }

    let settings: ApnsSettings
    let token: ApnsProviderToken
    private let client: HTTPClient
    private let tls: TLSConfiguration
    private let transport: TransportClock

    /// Answers are read up to this size (APNs' error bodies are a few dozen bytes).
    static let maxResponseBytes = 8 << 10

    /// The client every APNs channel shares by default, for the life of the
    /// process (never shut down, like ``WebhookChannel/sharedClient``): HTTP/2
    /// when the server offers it (APNs always does), no redirects, and a
    /// refused connection fails at once. Each request carries the channel's
    /// TLS configuration (its trust roots), so connections are pooled per configuration.
    public static let sharedClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.redirectConfiguration = .disallow
        configuration.httpVersion = .automatic
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// A channel pushing with `settings`.
    ///
    /// - Parameters:
    ///   - client: the HTTP client (default ``sharedClient``; an injected one is the caller's to shut down).
    ///   - transport: real time, for the provider token's `iat` and age.
    /// - Throws: ``AlertDeliverySettingsError`` when the key is not a P-256 private key or a trust root
    ///   cannot be read as a certificate.
    public init(settings: ApnsSettings, client: HTTPClient = ApnsChannel.sharedClient, transport: TransportClock = .system) throws(AlertDeliverySettingsError) {
        self.settings = settings
        self.client = client
        self.transport = transport
        do {
            token = try ApnsProviderToken(keyPEM: settings.keyPEM, keyID: settings.keyID, teamID: settings.teamID, clock: transport)
        } catch {
            throw AlertDeliverySettingsError(key: "alerts.apns.keyPath", message: "the file is not an ES256 (P-256) private key in PEM")
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.applicationProtocols = ["h2"]
        if let pem = settings.trustRootsPEM {
            do {
                tls.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8)))]
            } catch {
                throw AlertDeliverySettingsError(key: "alerts.apns.trustRoots", message: "the file holds no readable PEM certificate")
            }
        }
        self.tls = tls
    }

    /// One push of `alert.body` to `alert.device`, classified; never throws.
    public func deliver(_ alert: OutboundAlert) async -> DeliveryOutcome {
        guard let device = alert.device else { return .failed(reason: "no device for a push") }
        let bearer: String
        do {
            bearer = try await token.token()
        } catch {
            return .failed(reason: "provider token not signed: \(type(of: error))")
        }
        let first = await send(alert, to: device, bearer: bearer)
        guard case .expiredProviderToken = first else { return first.outcome }
        // 403 ExpiredProviderToken: once more with a new token, if APNs' 20-minute rule allows one.
        let renewal: ApnsProviderToken.Renewal
        do {
            renewal = try await token.renew(after: bearer)
        } catch {
            return .retry(reason: "APNs 403 ExpiredProviderToken; no new token signed: \(type(of: error))", retryAfter: nil)
        }
        switch renewal {
        case .retryWith(let fresh):
            let second = await send(alert, to: device, bearer: fresh)
            if case .expiredProviderToken = second {
                return .retry(reason: "APNs 403 ExpiredProviderToken twice: check this machine's clock", retryAfter: nil)
            }
            return second.outcome
        case .tooSoon(let age):
            return .retry(reason: "APNs 403 ExpiredProviderToken for a token \(age) s old: check this machine's clock", retryAfter: nil)
        }
    }

    /// What one request came to.
    enum Answer {
        case classified(DeliveryOutcome)
        case expiredProviderToken

        var outcome: DeliveryOutcome {
            switch self {
            case .classified(let outcome): outcome
            case .expiredProviderToken: .retry(reason: "APNs 403 ExpiredProviderToken", retryAfter: nil)
            }
        }
    }

    private func send(_ alert: OutboundAlert, to device: PushDevice, bearer: String) async -> Answer {
        let base = settings.baseURL ?? (device.environment == .sandbox ? ApnsSettings.sandboxURL : ApnsSettings.productionURL)
        var request = HTTPClientRequest(url: "\(base)/3/device/\(device.token)")
        request.method = .POST
        request.tlsConfiguration = tls
        for (name, value) in headers(for: alert, device: device) { request.headers.add(name: name, value: value) }
        request.headers.add(name: "authorization", value: "bearer \(bearer)")
        request.body = .bytes(ByteBuffer(bytes: alert.body))
        let deadline = NIODeadline.now() + TimeAmount(settings.timeout)
        let response: HTTPClientResponse
        let body: ByteBuffer
        do {
            response = try await client.execute(request, deadline: deadline)
            body = try await response.body.collect(upTo: Self.maxResponseBytes)
        } catch {
            return .classified(Self.outcome(of: error, timeout: settings.timeout))
        }
        return Self.classify(status: Int(response.status.code), body: body, retryAfter: response.headers.first(name: "retry-after"), now: transport.now())
    }

    /// Every header but `authorization`, in the order sent.
    func headers(for alert: OutboundAlert, device: PushDevice) -> [(String, String)] {
        let silent = alert.kind == .watchlistUpdate
        var headers: [(String, String)] = [
            ("content-type", "application/json"),
            ("apns-topic", settings.topic),
            ("apns-push-type", silent ? "background" : "alert"),
            ("apns-priority", silent ? "5" : "10"),
            ("apns-expiration", String(alert.expiresAt.map { max(0, Int64($0.timeIntervalSince1970.rounded(.down))) } ?? 0)),
            ("apns-id", Self.apnsID(alertID: alert.alertID, token: device.token)),
        ]
        // At most 64 bytes (APNs' limit): a route is two codes and a dash, a watchlist id 34 characters.
        if !alert.collapseID.isEmpty, alert.collapseID.utf8.count <= 64 { headers.append(("apns-collapse-id", alert.collapseID)) }
        return headers
    }

    /// The outcome of an answer (the table in the type's documentation).
    static func classify(status: Int, body: ByteBuffer, retryAfter: String?, now: Date) -> Answer {
        // 200 has no body: only an error is decoded.
        let error = status == 200 ? nil : try? JSONDecoder().decode(ApnsErrorBody.self, from: Data(body.readableBytesView))
        let reason = error?.reason ?? ""
        let line = reason.isEmpty ? "APNs \(status)" : "APNs \(status) \(reason)"
        switch (status, reason) {
        case (200, _):
            return .classified(.delivered)
        case (410, _), (400, "BadDeviceToken"), (400, "DeviceTokenNotForTopic"):
            // 410's timestamp: when APNs learnt the token was no longer valid (milliseconds since 1970).
            let since = status == 410 ? error?.timestamp.map { Date(timeIntervalSince1970: Double($0) / 1000) } : nil
            return .classified(.deviceGone(reason: line, invalidSince: since))
        case (403, "ExpiredProviderToken"):
            return .expiredProviderToken
        case (429, _), (500 ..< 600, _):
            return .classified(.retry(reason: line, retryAfter: retryAfter.flatMap { WebhookChannel.retryAfter($0, now: now) }))
        default:
            return .classified(.failed(reason: line))
        }
    }

    /// A request that got no answer: uncertain when it may have reached APNs
    /// (a timeout after sending, a stream reset, a connection closed before
    /// the answer), otherwise a retry.
    static func outcome(of error: any Error, timeout: Duration) -> DeliveryOutcome {
        if let closed = error as? NIOHTTP2Errors.StreamClosed {
            return .uncertain(reason: "APNs reset the stream (\(closed.errorCode)) before an answer; it may have the push")
        }
        if let http = error as? HTTPClientError {
            switch http {
            case .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout:
                return .retry(reason: "no connection to APNs within \(WebhookChannel.text(timeout))", retryAfter: nil)
            case .deadlineExceeded, .readTimeout, .writeTimeout:
                return .uncertain(reason: "no answer from APNs within \(WebhookChannel.text(timeout)); it may have the push")
            case .remoteConnectionClosed, .cancelled:
                return .uncertain(reason: "connection to APNs closed before an answer; it may have the push")
            default:
                return .retry(reason: "HTTP client error: \(http)", retryAfter: nil)
            }
        }
        if error is NIOSSLError || error is BoringSSLError {
            return .retry(reason: "TLS to APNs failed: \(error)", retryAfter: nil)
        }
        if WebhookChannel.mayHaveArrived(error) {
            return .uncertain(reason: "connection to APNs reset before an answer; it may have the push")
        }
        return .retry(reason: "connection to APNs failed: \(String(describing: error).prefix(120))", retryAfter: nil)
    }

    /// `apns-id`: a name-based UUID (RFC 9562 version 5, SHA-1 in FareLens'
    /// own namespace) of `alertID/token`, so every retry of one alert to
    /// one device carries the same id, and two devices never share one.
    static func apnsID(alertID: String, token: String) -> String {
        var hash = Insecure.SHA1()
        hash.update(data: namespace)
        hash.update(data: Array("\(alertID)/\(token)".utf8))
        var bytes = Array(hash.finalize().prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50  // version 5
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 9562 variant
        let uuid = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                               bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        return uuid.uuidString
    }

    /// FareLens' namespace for ``apnsID(alertID:token:)``: 6f1c2a0e-8b7d-4c55-9a3e-fa5e1e45a1e7.
    private static let namespace: [UInt8] = [0x6f, 0x1c, 0x2a, 0x0e, 0x8b, 0x7d, 0x4c, 0x55, 0x9a, 0x3e, 0xfa, 0x5e, 0x1e, 0x45, 0xa1, 0xe7]
}

/// APNs' error body, e.g. `{"reason":"Unregistered","timestamp":1700000000000}`.
struct ApnsErrorBody: Decodable {
    var reason: String
    var timestamp: Int64?
}
