import Synchronization

/// What a body run under ``withStallLimit(_:stall:limit:_:)`` reports as it
/// goes: each ``advance()`` is a step forward.
public final class ProgressMark: Sendable {
    private let steps = Atomic<Int>(0)

    public init() {}

    /// One step made.
    public func advance() {
        steps.add(1, ordering: .relaxed)
    }

    /// Steps made so far.
    public var count: Int { steps.load(ordering: .relaxed) }
}

/// Runs `body`, cancelling it and throwing ``WaitTimedOut`` if the steps it
/// reports on its ``ProgressMark`` stand still for `stall`, or if it has not
/// finished within `limit` (``withTimeLimit(_:limit:_:)``): a bound against a
/// hang (a run that stops moving) which a slow or loaded machine's steady
/// progress does not trip, where one bound on the whole run does (5,000
/// bridge round trips took 5 s alone on a slow machine and over 60 s beside
/// six other tests, 2026-12-02).
///
/// Progress is looked at once a second. The body must honour cancellation,
/// as for ``withTimeLimit(_:limit:_:)``.
public func withStallLimit<T: Sendable>(
    _ what: String,
    stall: Duration = .seconds(60),
    limit: Duration = .seconds(600),
    _ body: @escaping @Sendable (ProgressMark) async throws -> T
) async throws -> T {
    let progress = ProgressMark()
    return try await withTimeLimit(what, limit: limit) {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body(progress) }
            group.addTask {
                var seen = progress.count
                var movedAt = ContinuousClock.now
                while true {
                    try await Task.sleep(for: .seconds(1))  // safe: looks at progress; withTimeLimit bounds it; never a timing assertion
                    let now = progress.count
                    if now != seen {
                        (seen, movedAt) = (now, .now)
                    } else if .now - movedAt >= stall {
                        throw WaitTimedOut(what: "\(what) (no progress for \(stall), after \(now) steps)")
                    }
                }
            }
            defer { group.cancelAll() }
            // The body's value, or the first error of either: the watcher never returns.
            guard let value = try await group.next() else { throw WaitTimedOut(what: what) }  // never: two tasks were added
            return value
        }
    }
}
