public import Foundation

/// Real time on the wire, whatever clock the product's rules run on.
///
/// A service has two clocks. Its business clock (``WallClock``) drives the
/// rules: schedules, quiet hours, trials, the day a deal is in; the demo and
/// the stepped clock move it. Its transport clock drives what a receiver or
/// a network sees: a webhook's `webhook-timestamp` (a receiver rejects one
/// more than 5 minutes from its own clock), when a failed attempt is retried
/// (a backoff, a `Retry-After`), request timeouts. The demo's clock runs days
/// ahead of real time; the transport clock never does.
///
/// A struct, not a ``WallClock``, so one cannot be passed where the other is
/// expected. Tests inject their own reading (`TransportClock { manual.now() }`).
public struct TransportClock: Sendable {
    private let read: @Sendable () -> Date

    /// A clock that reads `read`.
    public init(_ read: @escaping @Sendable () -> Date) {
        self.read = read
    }

    /// The system's real time.
    public static let system = TransportClock { Date() }

    /// The current real instant.
    public func now() -> Date { read() }
}
