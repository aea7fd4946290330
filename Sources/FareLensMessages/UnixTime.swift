public import Foundation

/// Instants as the messages carry them: `int64 …_unix_ms` (Protos/README.md).
extension Date {
    /// Unix epoch milliseconds, rounded.
    public var unixMilliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

    /// The instant `milliseconds` after the Unix epoch.
    public init(unixMilliseconds milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
