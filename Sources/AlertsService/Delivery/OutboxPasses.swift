/// Whether an outbox pass of the alerts service is running, and whether
/// another was asked for meanwhile: two passes never overlap, and a pass
/// asked for while one runs is not lost but run right after it (an alert
/// accepted mid-pass goes out without waiting for the next tick).
///
/// A value with no I/O: ``AlertsService/deliverDue()`` asks it what to do
/// and does it (`OutboxPassesTests` drives it alone).
struct OutboxPasses: Sendable {
    private enum State {
        /// No pass runs.
        case idle
        /// A pass runs; nobody asked for another.
        case running
        /// A pass runs and another was asked for: it runs once this one ends.
        case runningThenAgain
    }

    /// What the caller of ``ask()`` does.
    enum AskAction: Equatable {
        /// Run a pass now (then call ``passEnded()``).
        case runPass
        /// Nothing: the pass under way runs another after itself.
        case leaveToRunningPass
    }

    /// What the runner does once its pass has ended.
    enum EndAction: Equatable {
        /// Run one more pass (asked for meanwhile), then call ``passEnded()`` again.
        case runAnotherPass
        /// Stop: no pass runs now.
        case stop
    }

    private var state = State.idle

    /// A pass is wanted.
    mutating func ask() -> AskAction {
        switch state {
        case .idle:
            state = .running
            return .runPass
        case .running, .runningThenAgain:
            state = .runningThenAgain
            return .leaveToRunningPass
        }
    }

    /// The pass under way has ended.
    mutating func passEnded() -> EndAction {
        switch state {
        case .runningThenAgain:
            state = .running
            return .runAnotherPass
        case .running, .idle:
            state = .idle
            return .stop
        }
    }

    /// Whether a pass runs.
    var isRunning: Bool {
        if case .idle = state { return false }
        return true
    }
}
