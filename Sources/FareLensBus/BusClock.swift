/// What the bus's gathering windows read and wait on: when an event
/// arrived, when a gathering batch's window ends, and the wait until then
/// (``EventSubscription/settlingBatches(maximum:gathering:)``).
///
/// Production runs on the continuous clock (``continuous``). A test gives
/// the bus one it moves itself (`BusClock(following:)` in FareLensTesting),
/// so a window ends when the test says, never because real time passed.
/// Request deadlines do not read it yet (`BusInstant`; docs/architecture.md,
/// "Known gaps").
///
/// Read only when a subscriber gathers batches: a publish to any other
/// subscriber reads no clock.
public struct BusClock: Sendable {
    /// The current instant.
    public let now: @Sendable () -> ContinuousClock.Instant
    /// Suspends until `instant` on this clock; throws `CancellationError` when the task is cancelled first.
    public let sleep: @Sendable (_ until: ContinuousClock.Instant) async throws -> Void

    /// A clock that reads `now` and waits with `sleep`.
    public init(now: @escaping @Sendable () -> ContinuousClock.Instant, sleep: @escaping @Sendable (_ until: ContinuousClock.Instant) async throws -> Void) {
        self.now = now
        self.sleep = sleep
    }

    /// Real time: Swift's continuous clock.
    public static let continuous = BusClock(
        now: { .now },
        sleep: { instant in try await Task.sleep(until: instant, clock: .continuous) })  // safe: a gathering window's wait; cancelled once the consumer is awake
}
