@testable import FareLensBus
import PropertyBased
import Testing

/// ``BusInstant`` reads the clock `ContinuousClock` reads, as a plain
/// integer; a ``RequestContext``'s `deadline` converts to and from it.
@Suite("The bus's clock: BusInstant against ContinuousClock")
struct BusInstantTests {
    @Test("Now reads ContinuousClock's clock: the same count from its system epoch, within a millisecond")
    func nowReadsTheSameClock() {
        let epoch = ContinuousClock().systemEpoch
        let before = BusInstant.wholeNanoseconds(of: epoch.duration(to: .now))
        let bus = BusInstant.now.nanoseconds
        let after = BusInstant.wholeNanoseconds(of: epoch.duration(to: .now))
        // Another clock (CLOCK_REALTIME, or microseconds for nanoseconds) is off by years or by a factor of 1,000.
        #expect(bus >= before - 1_000_000)
        #expect(bus <= after + 1_000_000)
    }

    @Test("A moment converts to a ContinuousClock.Instant and back to itself, to the nanosecond")
    func roundTrip() async {
        let origin = BusInstant.now
        await propertyCheck(count: 500, input: Gen.int64(in: -1_000_000_000_000_000 ... 1_000_000_000_000_000)) { offset in
            let moment = origin.advanced(byNanoseconds: offset)
            #expect(BusInstant(moment.continuous) == moment)
            #expect(moment.continuous - origin.continuous == .nanoseconds(offset))
        }
    }

    @Test("Order and distance agree with ContinuousClock's for generated pairs")
    func orderAgrees() async {
        let base = ContinuousClock.now
        await propertyCheck(count: 500, input: Gen.int64(in: -10_000_000_000 ... 10_000_000_000), Gen.int64(in: -10_000_000_000 ... 10_000_000_000)) { a, b in
            let (first, second) = (base + .nanoseconds(a), base + .nanoseconds(b))
            #expect((BusInstant(first) < BusInstant(second)) == (first < second))
            #expect(BusInstant(second) - BusInstant(first) == second - first)
        }
    }

    @Test("Advancing saturates at Int64's bounds instead of trapping or wrapping")
    func saturates() {
        #expect(BusInstant(nanoseconds: .max - 5).advanced(byNanoseconds: 10).nanoseconds == .max)
        #expect(BusInstant(nanoseconds: .min + 5).advanced(byNanoseconds: -10).nanoseconds == .min)
        #expect(BusInstant(nanoseconds: 100).advanced(by: .seconds(Int64.max)).nanoseconds == .max)
        #expect(BusInstant(nanoseconds: 100).advanced(by: .nanoseconds(-30)).nanoseconds == 70)
    }

    @Test("A context's deadline set as a ContinuousClock.Instant reads back as the same instant and the same dueAt")
    func contextDeadline() {
        let deadline = ContinuousClock.now + .seconds(5)
        var context = RequestContext(deadline: deadline, traceID: TraceID(high: 1, low: 2))
        #expect(context.dueAt == BusInstant(deadline))
        #expect(context.deadline == deadline)
        #expect(context.remaining > .seconds(4) && context.remaining <= .seconds(5))
        context.deadline = deadline + .seconds(1)
        #expect(context.dueAt == BusInstant(deadline).advanced(by: .seconds(1)))
    }
}
