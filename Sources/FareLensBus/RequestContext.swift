/// What travels with a request besides its payload: the deadline and the
/// trace context. Handlers receive it and pass it as `parent:` to the
/// requests and events they make, which then inherit its deadline (never a
/// later one) and its trace id, in process and across the bridge.
///
/// Propagation is explicit, not a task-local: binding a task-local per
/// request measured about 1 µs, more than the rest of the in-process path
/// (docs/performance.md).
public struct RequestContext: Sendable {
    /// When the caller stops waiting, on the bus's clock (``BusClock``; a
    /// ``BusInstant``: a plain integer, unlike `ContinuousClock.Instant`).
    /// Across a process hop this is sent as the remaining budget and
    /// re-anchored on the receiving bus's clock.
    public var dueAt: BusInstant
    /// W3C-style trace id shared by every hop of one logical operation.
    public var traceID: TraceID
    /// Whether the peer that sent the request may call admin-only addresses.
    public var isAdmin: Bool

    /// Creates a context.
    @inlinable
    public init(dueAt: BusInstant, traceID: TraceID = .random(), isAdmin: Bool = true) {
        self.dueAt = dueAt
        self.traceID = traceID
        self.isAdmin = isAdmin
    }

    /// Creates a context with a deadline on `ContinuousClock`.
    public init(deadline: ContinuousClock.Instant, traceID: TraceID = .random(), isAdmin: Bool = true) {
        self.init(dueAt: BusInstant(deadline), traceID: traceID, isAdmin: isAdmin)
    }

    /// When the caller stops waiting, as a `ContinuousClock.Instant` (``dueAt`` converted).
    public var deadline: ContinuousClock.Instant {
        get { dueAt.continuous }
        set { dueAt = BusInstant(newValue) }
    }

    /// Time left before the deadline (zero or negative once it has passed),
    /// on the continuous clock: for a bus on a test's clock (``BusClock``),
    /// `dueAt - bus.configuration.clock.instant`.
    public var remaining: Duration { dueAt - .now }
}
