/// The bus's time: what request deadlines and gathering windows read and
/// wait on.
///
/// - A request's deadline (``RequestContext/dueAt``) is made on it, an
///   inline handler's late reply is judged on it, and an isolated handler
///   is released when it passes the deadline
///   (``HandlerExecution/isolated``).
/// - A gathering batch's window reads it (when the first event arrived,
///   when the window ends) and waits on it
///   (``EventSubscription/settlingBatches(maximum:gathering:)``).
///
/// Production runs on the continuous clock (``continuous``), read directly
/// on the request path (no closure call). A test gives the bus one it moves
/// itself (`BusClock(following:)` in FareLensTesting): a deadline passes
/// and a window ends when the test says, never because real time passed.
///
/// A request that leaves the process carries its remaining budget as this
/// clock measures it, and spends it on the wire in real time (the other
/// process cannot see this one's clock); a request that arrives is given
/// its budget on this clock (``MessageBus/handleEncodedRequest(typeName:address:payload:context:)``).
public struct BusClock: Sendable {
    /// The current instant.
    public let now: @Sendable () -> ContinuousClock.Instant
    /// Suspends until `instant` on this clock; throws `CancellationError` when the task is cancelled first.
    public let sleep: @Sendable (_ until: ContinuousClock.Instant) async throws -> Void
    /// Whether this is ``continuous``: the request path then reads the
    /// clock itself (``BusInstant/now``) instead of calling ``now``.
    @usableFromInline let isContinuous: Bool

    /// A clock that reads `now` and waits with `sleep`.
    public init(now: @escaping @Sendable () -> ContinuousClock.Instant, sleep: @escaping @Sendable (_ until: ContinuousClock.Instant) async throws -> Void) {
        self.init(now: now, sleep: sleep, isContinuous: false)
    }

    private init(now: @escaping @Sendable () -> ContinuousClock.Instant, sleep: @escaping @Sendable (_ until: ContinuousClock.Instant) async throws -> Void, isContinuous: Bool) {
        self.now = now
        self.sleep = sleep
        self.isContinuous = isContinuous
    }

    /// Real time: Swift's continuous clock.
    public static let continuous = BusClock(
        now: { .now },
        sleep: { instant in try await Task.sleep(until: instant, clock: .continuous) },  // safe: a gathering window's or a deadline timer's wait; cancelled once not needed
        isContinuous: true)

    /// The current instant as the request path reads it.
    @inlinable
    public var instant: BusInstant {
        isContinuous ? .now : readNow()
    }

    /// ``now`` as a ``BusInstant``; not inlinable, so no
    /// `ContinuousClock.Instant` (a resilient type, of unknown size outside
    /// its module) is in the frames of the inlined request path.
    @usableFromInline
    func readNow() -> BusInstant {
        BusInstant(now())
    }

    /// `instant` on this clock moved onto real time (the continuous clock):
    /// the same time left before it (what leaves the process). Unchanged on ``continuous``.
    @inlinable
    func onRealTime(_ instant: BusInstant) -> BusInstant {
        isContinuous ? instant : BusInstant.now.advanced(by: instant - self.instant)
    }

    /// The same time left before `dueAt` as a moment of real time: what a
    /// wait outside the bus (an HTTP call a handler makes) is bounded by.
    public func realDeadline(_ dueAt: BusInstant) -> ContinuousClock.Instant {
        onRealTime(dueAt).continuous
    }

    /// `instant` in real time (the continuous clock) moved onto this clock:
    /// the same time left before it (what arrives from another process). Unchanged on ``continuous``.
    @inlinable
    func fromRealTime(_ instant: BusInstant) -> BusInstant {
        isContinuous ? instant : self.instant.advanced(by: instant - BusInstant.now)
    }
}
