/// The floor of an in-process request: what any bus must do for a request
/// whatever its design (docs/bus.md), and nothing else. The handler is a
/// closure stored at run time, as a bus's route holds it, so the compiler
/// cannot inline it: calling it from a `nonisolated(nonsending)` function
/// and then running code costs one executor check (`swift_task_switch`)
/// after it returns, which a direct actor call does not pay (3 against 2
/// per request, counted with a `perf probe` on `swift_task_switch`;
/// docs/performance.md, "Speed (issue #12), seventh pass").
final class FloorDispatch: Sendable {
    typealias Handler = nonisolated(nonsending) @Sendable (Int) async -> Int
    let handler: Handler

    private init(handler: @escaping Handler) { self.handler = handler }

    /// Not inlinable into the benchmark, so the closure stays opaque there.
    @inline(never)
    static func make(_ book: QuoteBook) -> FloorDispatch {
        FloorDispatch { await book.quote($0) }
    }

    /// A clock read (deadline, latency's start), a cancellation check before
    /// the handler and one after it, a clock read (late reply, latency's end).
    @inline(__always)
    nonisolated(nonsending) func dispatch(_ key: Int) async -> Int {
        let start = ContinuousClock.now
        if Task.isCancelled { return 0 }
        let value = await handler(key)
        if Task.isCancelled { return 0 }
        let end = ContinuousClock.now
        return end < start ? 0 : value
    }
}
