public import Foundation
import Synchronization

/// The tasks waiting on a clock that moves only when told to (a test's
/// manual clock): each waits for an instant, and is resumed by the move that
/// reaches it, never by real time passing.
///
/// A waiter cancelled before or while it waits is resumed at once with
/// `CancellationError`, so a service stopping is never held by a clock
/// that does not move.
public final class ClockSleepers: Sendable {
    private enum Waiter {
        /// Its id is taken; its continuation is not stored yet.
        case arriving
        case waiting(until: Date, continuation: CheckedContinuation<Void, any Error>)
        /// Cancelled before its continuation was stored.
        case cancelled
    }

    private struct State {
        var nextID: UInt64 = 0
        var waiters: [UInt64: Waiter] = [:]
        /// The latest instant ``resume(upTo:)`` was called with: a waiter for it or earlier
        /// that arrives late (the clock moved between its check and its wait) is resumed at once.
        var reached = Date.distantPast
    }

    private let state = Mutex(State())

    public init() {}

    /// How many tasks are waiting now (a test's sign that a loop has come
    /// round to its wait: the work before it is done).
    public var count: Int {
        state.withLock { $0.waiters.values.count { if case .waiting = $0 { true } else { false } } }
    }

    /// Every id still held, waiting or not (tests: nothing is left behind).
    public var entries: Int { state.withLock { $0.waiters.count } }

    /// The earliest instant someone waits for; nil when no one waits.
    public var earliest: Date? {
        state.withLock { state in
            state.waiters.values.compactMap { if case .waiting(let until, _) = $0 { until } else { nil } }.min()
        }
    }

    /// Waits until ``resume(upTo:)`` is called with `instant` or later;
    /// returns at once when `now` is already there.
    public func wait(until instant: Date, now: Date) async throws {
        try Task.checkCancellation()
        guard instant > now else { return }
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.waiters[state.nextID] = .arriving
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Arrival { case wait, cancelled, reached }
                let arrival = state.withLock { state -> Arrival in
                    if case .cancelled = state.waiters[id] {
                        state.waiters[id] = nil
                        return .cancelled
                    }
                    if instant <= state.reached {
                        state.waiters[id] = nil
                        return .reached
                    }
                    state.waiters[id] = .waiting(until: instant, continuation: continuation)
                    return .wait
                }
                switch arrival {
                case .wait: break
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .reached: continuation.resume()
                }
            }
        } onCancel: {
            // Arriving: marked, and the arrival resumes it. Waiting: resumed here. Gone (woken already): nothing
            // to do, and nothing is left behind.
            let waiting = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                switch state.waiters[id] {
                case .arriving:
                    state.waiters[id] = .cancelled
                    return nil
                case .waiting(_, let continuation):
                    state.waiters[id] = nil
                    return continuation
                case .cancelled, nil:
                    return nil
                }
            }
            waiting?.resume(throwing: CancellationError())
        }
    }

    /// Resumes everyone waiting for `now` or earlier (call it after moving the clock to `now`).
    public func resume(upTo now: Date) {
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.reached = max(state.reached, now)
            var due: [CheckedContinuation<Void, any Error>] = []
            for (id, waiter) in state.waiters {
                guard case .waiting(let until, let continuation) = waiter, until <= now else { continue }
                due.append(continuation)
                state.waiters[id] = nil
            }
            return due
        }
        for continuation in due { continuation.resume() }
    }
}
