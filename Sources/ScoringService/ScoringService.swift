import FareLensBus
import FareLensRuntime

/// The scoring service's actor: the template its features will fill in.
///
/// A shell today, honestly: it registers **no** handlers and subscribes to
/// nothing, and `run()` has no background work. What it fixes is the shape
/// DESIGN.md asks for: the service's mutable state will be this actor's
/// (kept in `State` and re-checked after every `await`), the bus will reach
/// it with an actor hop, and its long-running work will live in `run()`.
actor ScoringService: ServiceBehaviour {
    private enum State {
        /// Built, `run()` not yet called.
        case idle
        /// `run()` was called; there is no background work yet.
        case running
    }

    private var state = State.idle

    init() {}

    /// Registers nothing yet: the scoring messages have no handlers.
    nonisolated func register(on bus: MessageBus) throws {}

    /// No background work yet: marks the service running and returns at once.
    func run() async throws {
        guard case .idle = state else { return }
        state = .running
    }
}
