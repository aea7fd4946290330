import HeapModule
package import NIOCore

/// The deadlines of one connection's outgoing requests, enforced by one
/// timer per connection instead of one per request: the timer is armed for
/// the earliest deadline, and when it fires every request whose deadline has
/// passed fails, then it is armed for the next one. Arming a timer from
/// outside the event loop wakes the loop (a syscall and a thread wake-up),
/// so with requests in flight a new one arms nothing unless its deadline is
/// the earliest.
///
/// Entries of answered requests are not removed at once (a heap cannot find
/// them cheaply); they are skipped when they reach the top, and the heap is
/// rebuilt from the requests still waiting when it holds more than twice as
/// many entries, so it stays proportional to the requests in flight.
package struct RequestDeadlines {
    package struct Entry: Comparable {
        package let deadline: NIODeadline
        package let id: UInt64
        package init(deadline: NIODeadline, id: UInt64) {
            self.deadline = deadline
            self.id = id
        }
        package static func < (lhs: Entry, rhs: Entry) -> Bool { (lhs.deadline, lhs.id) < (rhs.deadline, rhs.id) }
    }

    /// A timer to arm: fire at `deadline` and report `generation` back.
    package struct Arming {
        package let deadline: NIODeadline
        package let generation: UInt64
    }

    package init() {}

    private var heap = Heap<Entry>()
    /// When the armed timer fires, if one is armed.
    private var armedAt: NIODeadline?
    /// Identifies the armed timer; an earlier one supersedes it, and a
    /// superseded timer that fires does nothing.
    private var generation: UInt64 = 0

    /// Entries held, answered ones included (tests).
    package var count: Int { heap.count }

    /// Adds a request's deadline; returns the timer to arm when it is the
    /// earliest one (or no timer is armed).
    /// `waiting` counts the requests waiting, this one included; `live`
    /// lists their entries, for a rebuild.
    package mutating func add(id: UInt64, deadline: NIODeadline, waiting: Int, live: () -> [Entry]) -> Arming? {
        heap.insert(Entry(deadline: deadline, id: id))
        if heap.count > 2 * waiting + 64 { heap = Heap(live()) }
        if let armedAt, armedAt <= deadline { return nil }
        return arm(at: deadline)
    }

    /// The timer of `generation` fired at `now`: removes and returns the
    /// waiting requests whose deadline has passed (`isWaiting` says which ids
    /// still wait), and the timer to arm next.
    package mutating func fire(generation fired: UInt64, now: NIODeadline, isWaiting: (UInt64) -> Bool) -> (expired: [UInt64], next: Arming?) {
        guard fired == generation else { return ([], nil) }
        armedAt = nil
        var expired: [UInt64] = []
        while let top = heap.min {
            if !isWaiting(top.id) {
                _ = heap.popMin()
            } else if top.deadline <= now {
                expired.append(heap.popMin()!.id)  // safe: min was just non-nil
            } else {
                return (expired, arm(at: top.deadline))
            }
        }
        return (expired, nil)
    }

    /// Forgets everything (the connection closed).
    package mutating func removeAll() {
        heap = Heap()
        armedAt = nil
        generation &+= 1
    }

    private mutating func arm(at deadline: NIODeadline) -> Arming {
        generation &+= 1
        armedAt = deadline
        return Arming(deadline: deadline, generation: generation)
    }
}
