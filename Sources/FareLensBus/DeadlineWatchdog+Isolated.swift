extension DeadlineWatchdog {
    /// Runs `body` in its own task and returns its result, or throws
    /// `timeout` at `deadline` / `cancelled` when the calling task is
    /// cancelled — whichever comes first. The body's task is cancelled when
    /// the caller stops waiting for it.
    func runIsolated<T: Sendable>(
        deadline: ContinuousClock.Instant,
        what: String,
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let reply = OneShotReply<T>()
        let start = clock.now()
        let worker = Task {
            do { reply.complete(.success(try await body())) } catch { reply.complete(.failure(error)) }
        }
        let token = schedule(at: deadline) {
            if reply.complete(.failure(BusError.timeout(what, after: deadline - start))) { worker.cancel() }
        }
        defer { cancel(token) }
        return try await withTaskCancellationHandler {
            try await reply.wait()
        } onCancel: {
            if reply.complete(.failure(BusError.cancelled(what))) { worker.cancel() }
        }
    }
}
