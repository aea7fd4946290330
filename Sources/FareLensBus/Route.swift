import CoreMetrics

/// A registered handler for one request type, with its admission slot and
/// metrics. The wire entry point lets a transport deliver encoded requests.
protocol AnyRoute: AnyObject, Sendable {
    var slot: ServiceSlot { get }
    var wireTypeName: String { get }
    /// The address the request type belongs to.
    var address: ServiceAddress { get }
    /// Decodes, handles and encodes one request that arrived from a transport.
    func handleWire(_ bytes: [UInt8], context: RequestContext) async -> Result<[UInt8], BusError>
    /// Runs the handler for a request of the route's own type, found by that
    /// type (``RouteTable/byType``). Generic over the request rather than a
    /// downcast to `TypedRoute<R>`, which looks up that class's metadata on
    /// every call from another module (8% of the in-process request path).
    func call<Q: BusRequest>(_ request: Q, context: RequestContext, start: ContinuousClock.Instant) async throws(BusError) -> Q.Response
}

/// The handler for request type `R`.
final class TypedRoute<R: BusRequest>: AnyRoute {
    typealias Handler = @Sendable (R, RequestContext) async throws -> R.Response
    /// `R.address`, or the per-instance address it was served at.
    let address: ServiceAddress
    let slot: ServiceSlot
    let execution: HandlerExecution
    let handler: Handler
    let metrics: RequestMetrics
    let watchdog: DeadlineWatchdog
    var wireTypeName: String { R.wireTypeName }

    init(slot: ServiceSlot, execution: HandlerExecution, watchdog: DeadlineWatchdog, metricsFactory: any MetricsFactory, handler: @escaping Handler) {
        self.address = slot.address
        self.slot = slot
        self.execution = execution
        self.handler = handler
        self.watchdog = watchdog
        self.metrics = RequestMetrics(typeName: R.wireTypeName, address: slot.address, factory: metricsFactory)
    }

    func call<Q: BusRequest>(_ request: Q, context: RequestContext, start: ContinuousClock.Instant) async throws(BusError) -> Q.Response {
        precondition(Q.self == R.self, "route for \(R.wireTypeName) called with \(Q.wireTypeName)")
        // safe: Q is R (checked above), so the value and its response have R's and R.Response's layout.
        let response = try await call(unsafeBitCast(request, to: R.self), context: context, start: start)
        return unsafeBitCast(response, to: Q.Response.self)  // safe: Q.Response is R.Response (Q is R)
    }

    /// Runs the handler under the route's admission, deadline and metrics;
    /// `start` is when the request was made (the latency metric's start).
    func call(_ request: R, context: RequestContext, start: ContinuousClock.Instant) async throws(BusError) -> R.Response {
        try slot.enter()
        defer { slot.leave() }
        do throws(BusError) {
            let response = try await dispatch(request, context: context, start: start)
            // A cancelled caller gets `cancelled`, even if the handler
            // swallowed the cancellation and answered anyway.
            if Task.isCancelled { throw BusError.cancelled(R.wireTypeName) }
            // One clock read serves both the late-reply check and the metric.
            let end = ContinuousClock.now
            guard end <= context.deadline else { throw BusError.timeout(R.wireTypeName, after: context.deadline - start) }
            metrics.handled.increment()
            metrics.latency.record(duration: end - start)
            return response
        } catch {
            metrics.failed(error.kind)
            throw error
        }
    }

    private func dispatch(_ request: R, context: RequestContext, start: ContinuousClock.Instant) async throws(BusError) -> R.Response {
        if Task.isCancelled { throw .cancelled(R.wireTypeName) }
        guard start < context.deadline else { throw .deadlineExpired(R.wireTypeName) }
        switch execution {
        case .inline:
            do {
                return try await handler(request, context)
            } catch {
                throw lateOrMapped(error, context: context)
            }
        case .isolated:
            let handler = self.handler
            do {
                return try await watchdog.runIsolated(deadline: context.deadline, what: R.wireTypeName) {
                    try await handler(request, context)
                }
            } catch {
                throw lateOrMapped(error, context: context)
            }
        }
    }

    /// A handler error after the deadline is reported as the timeout it is.
    private func lateOrMapped(_ error: any Error, context: RequestContext) -> BusError {
        let mapped = BusError.fromHandler(error, type: R.wireTypeName)
        if mapped.kind == .cancelled, !Task.isCancelled, ContinuousClock.now >= context.deadline {
            return .deadlineExpired(R.wireTypeName)
        }
        return mapped
    }

    func handleWire(_ bytes: [UInt8], context: RequestContext) async -> Result<[UInt8], BusError> {
        let request: R
        do {
            request = try R(wireEncoded: bytes)
        } catch {
            return .failure(.badMessage("cannot decode \(R.wireTypeName): \(error)"))
        }
        do {
            let response = try await call(request, context: context, start: .now)
            return .success(try response.wireEncoded())
        } catch let error as BusError {
            return .failure(error)
        } catch {
            return .failure(.badMessage("cannot encode \(R.Response.wireTypeName): \(error)"))
        }
    }
}
