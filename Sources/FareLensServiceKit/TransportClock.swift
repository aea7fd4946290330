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
/// expected. Tests inject their own reading and waiting
/// (`TransportClock(following: manual)` in FareLensTesting), so a retry
/// waits until the test moves time, not for a real second.
public struct TransportClock: Sendable {
    private let read: @Sendable () -> Date
    private let waitUntil: @Sendable (Date) async throws -> Void

    /// A clock that reads `read` and waits in real time.
    public init(_ read: @escaping @Sendable () -> Date) {
        self.read = read
        self.waitUntil = { instant in
            let remaining = instant.timeIntervalSince(read())
            guard remaining > 0 else { return try Task.checkCancellation() }
            try await Task.sleep(for: .seconds(remaining))  // safe: the transport clock's own wait, cancelled with its task
        }
    }

    /// A clock that reads `read` and waits with `sleep` until an instant of its own.
    public init(read: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (_ until: Date) async throws -> Void) {
        self.read = read
        self.waitUntil = sleep
    }

    /// Suspends until `interval` has passed on this clock (a retry's backoff, waiting out a neighbour that is away).
    ///
    /// - Throws: `CancellationError` when the task is cancelled first.
    public func sleep(for interval: Duration) async throws {
        try await waitUntil(now().addingTimeInterval(interval.timeInterval))
    }

    /// The system's real time.
    public static let system = TransportClock { Date() }

    /// The current real instant.
    public func now() -> Date { read() }
}
