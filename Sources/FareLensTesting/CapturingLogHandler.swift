public import Logging

/// A log handler that keeps every line it is given, as "LEVEL message",
/// for tests that check what a component logged (or did not).
public struct CapturingLogHandler: LogHandler {
    public let lines: Locked<[String]>
    public var logLevel: Logger.Level = .trace
    public var metadata: Logger.Metadata = [:]

    public init(lines: Locked<[String]>) {
        self.lines = lines
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        lines.update { $0.append("\(event.level) \(event.message)") }
    }
}
