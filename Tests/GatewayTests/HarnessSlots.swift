/// How many harnesses run their nodes at once in the test process.
///
/// Each harness starts whole nodes (every service, the airport directory and
/// fare data loaded). Started all at once by the parallel runner beside the
/// heavy phase's processes, on a fresh-clone CI run of 2026-11-29 fourteen of
/// them gave up waiting 30 s for their node to be ready. A harness takes a
/// slot before it starts its nodes and gives it back when it stops (or, if a
/// failing test never stops it, when it is released), so the rest wait their
/// turn instead of starving each other's bounded waits.
actor HarnessSlots {
    static let shared = HarnessSlots(capacity: 3)

    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(capacity: Int) { free = capacity }

    /// Waits for a free slot and takes it.
    func take() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Gives a slot back, to the longest waiter if there is one.
    func giveBack() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
