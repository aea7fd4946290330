/// What travels with a request besides its payload: the deadline and the
/// trace context. Handlers receive it; nested requests made while handling
/// inherit its deadline (never a later one) and its trace id, in process and
/// across the bridge.
public struct RequestContext: Sendable {
    /// When the caller stops waiting. Across a process hop this is sent as the
    /// remaining budget and re-anchored on the receiving node's clock.
    public var deadline: ContinuousClock.Instant
    /// W3C-style trace id shared by every hop of one logical operation.
    public var traceID: String
    /// Whether the peer that sent the request may call admin-only addresses.
    public var isAdmin: Bool

    /// Creates a context.
    public init(deadline: ContinuousClock.Instant, traceID: String = RequestContext.newTraceID(), isAdmin: Bool = true) {
        self.deadline = deadline
        self.traceID = traceID
        self.isAdmin = isAdmin
    }

    /// Time left before the deadline (zero or negative once it has passed).
    public var remaining: Duration { deadline - ContinuousClock.now }

    /// The context of the request being handled by the current task, if any.
    @TaskLocal public static var current: RequestContext?

    /// A fresh random 128-bit trace id in lowercase hex.
    public static func newTraceID() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64, low = generator.next() as UInt64
        return hex(high) + hex(low)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
