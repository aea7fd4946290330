import FareLensServiceKit
public import Logging
import Synchronization

/// A log level that can change while the process runs (`farelensctl
/// log-level`). Reading it is one relaxed atomic load, so the hot path of a
/// log call that is filtered out stays cheap.
public final class LogLevelControl: Sendable {
    private let raw: Atomic<UInt8>

    /// The names a level may be given by, most verbose first.
    public static let validNames = Logger.Level.allCases.map(\.rawValue)

    /// Starts at `level`.
    public init(_ level: Logger.Level) {
        raw = Atomic(Self.index(of: level))
    }

    /// The current level.
    public var level: Logger.Level {
        get { Logger.Level.allCases[Int(raw.load(ordering: .relaxed))] }
        set { raw.store(Self.index(of: newValue), ordering: .relaxed) }
    }

    /// Sets the level from its name and returns the previous one.
    ///
    /// - Throws: ``NodeAdminError`` `invalid-level`, listing the valid names.
    @discardableResult
    public func set(named name: String) throws(NodeAdminError) -> Logger.Level {
        guard let level = Logger.Level(rawValue: name.lowercased()) else { throw .invalidLevel(name) }
        let previous = self.level
        self.level = level
        return previous
    }

    private static func index(of level: Logger.Level) -> UInt8 {
        UInt8(Logger.Level.allCases.firstIndex(of: level) ?? 0)
    }
}

/// Wraps a log handler so its level is a ``LogLevelControl``'s: every logger
/// made through it follows `farelensctl log-level` at once. Setting
/// `logLevel` on such a logger changes the shared control.
public struct ControlledLogHandler: LogHandler {
    private var inner: any LogHandler
    private let control: LogLevelControl

    /// Wraps `inner`; the control decides what passes.
    public init(wrapping inner: any LogHandler, control: LogLevelControl) {
        self.inner = inner
        self.control = control
    }

    public var logLevel: Logger.Level {
        get { control.level }
        set { control.level = newValue }
    }

    public var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    public func log(event: LogEvent) {
        inner.log(event: event)
    }
}
