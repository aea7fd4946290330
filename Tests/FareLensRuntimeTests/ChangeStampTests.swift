import FareLensBus
import FareLensServiceKit
import Testing

/// The order a keeper applies one thing's changes in (``ChangeStamp``): time
/// first, then, within one millisecond, the publisher's sequence.
@Suite("Change stamps")
struct ChangeStampTests {
    static let outbox = "watchlist.outbox#a1"

    static func stamp(_ ms: Int64, _ publisher: String?, _ sequence: UInt64?) -> ChangeStamp {
        ChangeStamp(atUnixMs: ms, id: sequence.map { EventID(publisher: publisher ?? "", sequence: $0) })
    }

    @Test("a later time supersedes an earlier one whatever their sequences; an earlier time never does")
    func timeFirst() {
        #expect(Self.stamp(6, Self.outbox, 1).supersedes(Self.stamp(5, Self.outbox, 9)))
        #expect(!Self.stamp(5, Self.outbox, 9).supersedes(Self.stamp(6, Self.outbox, 1)))
        #expect(Self.stamp(6, "another", 1).supersedes(Self.stamp(5, Self.outbox, 9)))
        #expect(!Self.stamp(4, nil, nil).supersedes(Self.stamp(5, nil, nil)))
    }

    @Test("in one millisecond, from one publisher: only a later sequence supersedes; the same event delivered again does not")
    func sameMillisecondSamePublisher() {
        #expect(Self.stamp(5, Self.outbox, 8).supersedes(Self.stamp(5, Self.outbox, 7)))
        #expect(!Self.stamp(5, Self.outbox, 7).supersedes(Self.stamp(5, Self.outbox, 8)))
        #expect(!Self.stamp(5, Self.outbox, 7).supersedes(Self.stamp(5, Self.outbox, 7)))
    }

    @Test("in one millisecond with nothing to compare (another publisher, an id not known, a row kept before stamps): arrival order, the new one applied")
    func sameMillisecondNothingToCompare() {
        #expect(Self.stamp(5, "another", 1).supersedes(Self.stamp(5, Self.outbox, 8)))
        #expect(Self.stamp(5, nil, nil).supersedes(Self.stamp(5, Self.outbox, 8)))
        #expect(Self.stamp(5, Self.outbox, 1).supersedes(ChangeStamp(atUnixMs: 5, publisher: nil, sequence: nil)))
    }

    @Test("a stamp keeps the publisher and the sequence of its event's id, as a keeper stores them")
    func storedSequence() {
        let stamp = ChangeStamp(atUnixMs: 1, id: EventID(publisher: Self.outbox, sequence: 42))
        #expect(stamp.publisher == Self.outbox)
        #expect(stamp.sequence == 42)
    }
}
