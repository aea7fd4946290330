public import FareLensMessages
public import Foundation
public import Logging

/// Delivers alerts as JSON lines: appended to a file (`alerts.log.path`) or,
/// without one, logged by the service logger at `info`.
///
/// Each line is one JSON object (keys in this order):
/// `{"alert_id":…,"user_id":…,"kind":"price_drop","attempt":1,"logged_at":"2026-…Z","payload":{…}}`
/// where `payload` is the alert's JSON body embedded as it is (line breaks
/// between its tokens turned into spaces). The file and its directory are
/// created when absent (mode 0640); each line goes to the file in one
/// `write` on an `O_APPEND` descriptor, so lines from concurrent writers
/// never interleave, and the file is reopened per line, so moving it away
/// (log rotation) starts a new one. A failed open or write is a retry with
/// the system's reason; if a write was cut short (a full disk), a line break
/// is attempted after the fragment so the next line starts clean, and
/// readers skip a line that does not parse.
public struct LogChannel: AlertDeliveryChannel {
    public var channel: AlertChannel { .log }

    /// The file lines are appended to; nil: the logger.
    public let path: String?
    private let logger: Logger
    private let now: @Sendable () -> Date

    /// A channel appending to `path`, or logging with `logger` when `path` is nil.
    public init(path: String?, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }) {
        self.path = path
        self.logger = logger
        self.now = now
    }

    /// Writes one line; `.failed` only for a body that is not JSON.
    public func deliver(_ alert: OutboundAlert) async -> DeliveryOutcome {
        guard let line = line(for: alert) else { return .failed(reason: "the alert's body is not valid JSON") }
        guard let path else {
            logger.info("\(String(decoding: line.dropLast(), as: UTF8.self))", metadata: ["alert_id": "\(alert.alertID)"])
            return .delivered
        }
        return Self.append(line, to: path)
    }

    /// The JSON line, newline included; nil when the body is not JSON.
    func line(for alert: OutboundAlert) -> Data? {
        guard (try? JSONSerialization.jsonObject(with: alert.body, options: [.fragmentsAllowed])) != nil else { return nil }
        // Line breaks in valid JSON lie between tokens (strings hold them escaped), so spaces can stand in.
        // Scanned through a buffer pointer: `Data.contains(where:)` went byte by byte through Data's iterator.
        let hasBreaks = alert.body.withUnsafeBytes { bytes in bytes.contains { $0 == 0x0A || $0 == 0x0D } }
        let payload = hasBreaks ? Data(alert.body.map { $0 == 0x0A || $0 == 0x0D ? 0x20 : $0 }) : alert.body
        var line = Data("{\"alert_id\":\(Self.quoted(alert.alertID)),\"user_id\":\(Self.quoted(alert.userID))".utf8)
        line.append(contentsOf: ",\"kind\":\(Self.quoted(AlertPayload.kindName(alert.kind))),\"attempt\":\(alert.attempt)".utf8)
        line.append(contentsOf: ",\"logged_at\":\(Self.quoted(AlertPayload.rfc3339(now()))),\"payload\":".utf8)
        line.append(payload)
        line.append(contentsOf: "}\n".utf8)
        return line
    }

    /// `text` as a JSON string literal.
    private static func quoted(_ text: String) -> String { JSONText.quoted(text) }

    /// Appends `line` with one `write`; any failure is a retry naming the path and the system's reason.
    static func append(_ line: Data, to path: String) -> DeliveryOutcome {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                return .retry(reason: "cannot create \(directory): \(Self.systemReason(error))", retryAfter: nil)
            }
        }
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o640)
        guard descriptor >= 0 else {
            return .retry(reason: "cannot open \(path): \(String(cString: strerror(errno)))", retryAfter: nil)
        }
        defer { close(descriptor) }
        let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written == line.count { return .delivered }
        let reason = written < 0 ? String(cString: strerror(errno)) : "only \(written) of \(line.count) bytes written"
        if written > 0 { _ = write(descriptor, "\n", 1) }
        return .retry(reason: "cannot write \(path): \(reason)", retryAfter: nil)
    }

    private static func systemReason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if nsError.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(nsError.code))) }
        return nsError.localizedDescription.split(whereSeparator: \.isNewline).first.map(String.init) ?? "unknown error"
    }
}
