#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A moment on the clock `ContinuousClock` reads, as whole nanoseconds in an
/// `Int64`: what the request path reads, compares and subtracts.
///
/// Why not `ContinuousClock.Instant` itself: it is a resilient struct of the
/// `_Concurrency` module, so outside that module every value of it is
/// opaque. Each copy and destroy went through value witnesses, each
/// comparison and sum was a call, and a ``RequestContext`` that stored one
/// had its size known only at run time, so every async frame it passed
/// through allocated room for it (docs/performance.md, "Speed (issue #12),
/// seventh pass"). This is a plain integer the compiler sees through,
/// counted from the same origin as `ContinuousClock` (its `systemEpoch`),
/// so conversions either way (``continuous``, ``init(_:)``) are exact.
public struct BusInstant: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Nanoseconds since the clock's origin (on Linux, `CLOCK_BOOTTIME`'s:
    /// the boot, counting time suspended, as `ContinuousClock` does).
    public var nanoseconds: Int64

    /// The moment `nanoseconds` after the clock's origin.
    @inlinable
    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// Now: one `clock_gettime` of the clock `ContinuousClock` reads.
    public static var now: BusInstant {
        var time = timespec()
        clock_gettime(continuousClockID, &time)
        return BusInstant(nanoseconds: Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec))
    }

    #if os(Linux)
    private static var continuousClockID: clockid_t { CLOCK_BOOTTIME }
    #else
    private static var continuousClockID: clockid_t { CLOCK_MONOTONIC }
    #endif

    /// This moment `duration` later (earlier when negative), saturating at
    /// `Int64`'s bounds.
    @inlinable
    public func advanced(by duration: Duration) -> BusInstant {
        advanced(byNanoseconds: Self.wholeNanoseconds(of: duration))
    }

    /// This moment `count` nanoseconds later, saturating at `Int64`'s bounds.
    @inlinable
    public func advanced(byNanoseconds count: Int64) -> BusInstant {
        let (sum, overflow) = nanoseconds.addingReportingOverflow(count)
        return BusInstant(nanoseconds: overflow ? (count > 0 ? .max : .min) : sum)
    }

    /// The time from `rhs` to `lhs`.
    @inlinable
    public static func - (lhs: BusInstant, rhs: BusInstant) -> Duration {
        .nanoseconds(lhs.nanoseconds &- rhs.nanoseconds)
    }

    @inlinable
    public static func < (lhs: BusInstant, rhs: BusInstant) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    /// Whole nanoseconds of `duration`, saturating at `Int64`'s bounds.
    ///
    /// Any duration under 9.2 s fits its attoseconds in 64 bits, where
    /// dividing by 10⁹ is a multiply; `Duration.components` is a 128-bit
    /// division (4.7% of the in-process request's profile when swift-metrics'
    /// `Timer.record(duration:)` did it: docs/performance.md, "sixth pass").
    @inlinable
    public static func wholeNanoseconds(of duration: Duration) -> Int64 {
        let attoseconds = duration.attoseconds
        if let small = Int64(exactly: attoseconds) { return small / 1_000_000_000 }
        return Int64(clamping: attoseconds / 1_000_000_000)
    }

    /// This moment as a `ContinuousClock.Instant`: the same count from the
    /// clock's origin (`ContinuousClock.systemEpoch`).
    public var continuous: ContinuousClock.Instant {
        ContinuousClock().systemEpoch.advanced(by: .nanoseconds(nanoseconds))
    }

    /// The moment `instant` names, to the nanosecond.
    public init(_ instant: ContinuousClock.Instant) {
        self.init(nanoseconds: Self.wholeNanoseconds(of: ContinuousClock().systemEpoch.duration(to: instant)))
    }

    public var description: String { "\(nanoseconds) ns" }
}
