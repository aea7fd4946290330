import Synchronization

/// Fires callbacks at deadlines on the bus's clock: what releases a caller
/// whose isolated handler does not answer in time. On a test's clock a
/// deadline fires when the test moves the clock past it.
///
/// One timer task runs only while something is scheduled; it is started on
/// demand (never in an initialiser) and ends when nothing is left.
final class DeadlineWatchdog: Sendable {
    typealias Token = UInt64
    private struct Entry {
        let deadline: ContinuousClock.Instant
        let fire: @Sendable () -> Void
    }
    private struct State {
        var entries: [Token: Entry] = [:]
        var nextToken: Token = 0
        var timer: Task<Void, Never>?
        var timerTarget: ContinuousClock.Instant?
        /// Bumped whenever a timer replaces another, so a stale timer that
        /// already woke leaves the new one's bookkeeping alone.
        var timerGeneration: UInt64 = 0
    }
    private let state = Mutex(State())
    /// What the timer reads and waits on.
    let clock: BusClock

    init(clock: BusClock) {
        self.clock = clock
    }

    /// Calls `fire` once at `deadline` unless ``cancel(_:)`` comes first.
    func schedule(at deadline: ContinuousClock.Instant, _ fire: @escaping @Sendable () -> Void) -> Token {
        state.withLock { state in
            let token = state.nextToken
            state.nextToken += 1
            state.entries[token] = Entry(deadline: deadline, fire: fire)
            if state.timerTarget.map({ deadline < $0 }) ?? true {
                state.timer?.cancel()
                state.timerTarget = deadline
                state.timerGeneration += 1
                let generation = state.timerGeneration
                state.timer = Task { [weak self] in await self?.runTimer(until: deadline, generation: generation) }
            }
            return token
        }
    }

    /// Forgets a scheduled callback (no effect if it already fired).
    func cancel(_ token: Token) {
        state.withLock { _ = $0.entries.removeValue(forKey: token) }
    }

    private func runTimer(until firstTarget: ContinuousClock.Instant, generation: UInt64) async {
        var target = firstTarget
        while true {
            do {
                try await clock.sleep(target)  // safe: the timer itself, on the bus's clock; cancelled when replaced
            } catch {
                return  // replaced by a timer with an earlier target
            }
            let now = clock.now()
            let (due, next): ([Entry], ContinuousClock.Instant?) = state.withLock { state in
                let isCurrent = state.timerGeneration == generation
                var due: [Entry] = []
                var next: ContinuousClock.Instant?
                for (token, entry) in state.entries {
                    if entry.deadline <= now {
                        due.append(entry)
                        state.entries.removeValue(forKey: token)
                    } else if next.map({ entry.deadline < $0 }) ?? true {
                        next = entry.deadline
                    }
                }
                guard isCurrent else { return (due, nil) }
                state.timerTarget = next
                if next == nil { state.timer = nil }
                return (due, next)
            }
            for entry in due { entry.fire() }
            guard let next else { return }
            target = next
        }
    }
}
