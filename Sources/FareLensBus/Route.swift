import CoreMetrics

/// A registered handler for one request type, with its admission slot and
/// metrics. The wire entry point lets a transport deliver encoded requests.
protocol AnyRoute: AnyObject, Sendable {
    var slot: ServiceSlot { get }
    var wireTypeName: String { get }
    /// The address the request type belongs to.
    var address: ServiceAddress { get }
    /// Decodes, handles and encodes one request that arrived from a transport.
    nonisolated(nonsending) func handleWire(_ bytes: [UInt8], context: RequestContext) async -> Result<[UInt8], BusError>
}

/// The handler for request type `R`.
///
/// The in-process path (``call(_:context:start:)``) is inlinable: a caller in
/// another module runs it specialised to its request type. Unspecialised,
/// every value of type `R` or `R.Response` and every typed error was a
/// task allocation (16 per request, 2 once specialised) and every function
/// entry an executor check (docs/performance.md, "Speed, second pass").
@usableFromInline
final class TypedRoute<R: BusRequest>: AnyRoute {
    @usableFromInline typealias Handler = nonisolated(nonsending) @Sendable (R, RequestContext) async throws -> R.Response
    /// Answers one encoded request: ``answer(_:context:)``, made where `R` is
    /// known (``MessageBus/serve(_:at:execution:maxInFlight:handler:)``) so it
    /// runs specialised.
    @usableFromInline typealias WireEntry = nonisolated(nonsending) @Sendable (TypedRoute<R>, [UInt8], RequestContext) async -> Result<[UInt8], BusError>
    /// `R.address`, or the per-instance address it was served at.
    @usableFromInline let address: ServiceAddress
    @usableFromInline let slot: ServiceSlot
    @usableFromInline let execution: HandlerExecution
    @usableFromInline let handler: Handler
    @usableFromInline let metrics: RequestMetrics
    /// The bus's clock: what the late-reply check and the latency metric read.
    @usableFromInline let clock: BusClock
    /// Whether ``clock`` is the continuous clock: then read without copying it.
    @usableFromInline let onContinuousClock: Bool
    let watchdog: DeadlineWatchdog
    let wireEntry: WireEntry
    var wireTypeName: String { R.wireTypeName }

    init(slot: ServiceSlot, execution: HandlerExecution, clock: BusClock, watchdog: DeadlineWatchdog, metricsFactory: any MetricsFactory, handler: @escaping Handler, wireEntry: @escaping WireEntry) {
        self.address = slot.address
        self.slot = slot
        self.execution = execution
        self.clock = clock
        self.onContinuousClock = clock.isContinuous
        self.handler = handler
        self.wireEntry = wireEntry
        self.watchdog = watchdog
        self.metrics = RequestMetrics(typeName: R.wireTypeName, address: slot.address, factory: metricsFactory)
    }

    /// Runs the handler under the route's admission, deadline and metrics;
    /// `start` is when the request was made (the latency metric's start).
    @inlinable @inline(__always)
    nonisolated(nonsending) func call(_ request: R, context: RequestContext, start: BusInstant) async throws(BusError) -> R.Response {
        try slot.enter()
        defer { slot.leave() }
        do throws(BusError) {
            if Task.isCancelled { throw .cancelled(R.wireTypeName) }
            guard start < context.dueAt else { throw .deadlineExpired(R.wireTypeName) }
            let response: R.Response
            switch execution {
            case .inline:
                do {
                    response = try await handler(request, context)
                } catch {
                    throw lateOrMapped(error, context: context)
                }
            case .isolated:
                response = try await runIsolated(request, context: context)
            }
            // A cancelled caller gets `cancelled`, even if the handler
            // swallowed the cancellation and answered anyway.
            if Task.isCancelled { throw .cancelled(R.wireTypeName) }
            // One clock read serves both the late-reply check and the metric.
            let end = onContinuousClock ? BusInstant.now : readClock()
            guard end <= context.dueAt else { throw .timeout(R.wireTypeName, after: context.dueAt - start) }
            metrics.succeeded(afterNanoseconds: end.nanoseconds &- start.nanoseconds)
            return response
        } catch {
            metrics.failed(error.kind)
            throw error
        }
    }

    /// Now on ``clock`` when it is not the continuous one; not inlinable, as
    /// ``MessageBus/readClock()`` is not.
    @usableFromInline
    func readClock() -> BusInstant {
        clock.instant
    }

    /// The handler in a task of its own, released at the deadline (``HandlerExecution/isolated``).
    @usableFromInline
    func runIsolated(_ request: R, context: RequestContext) async throws(BusError) -> R.Response {
        let handler = self.handler
        do {
            return try await watchdog.runIsolated(deadline: context.deadline, what: R.wireTypeName) {
                try await handler(request, context)
            }
        } catch {
            throw lateOrMapped(error, context: context)
        }
    }

    /// A handler error after the deadline is reported as the timeout it is.
    @usableFromInline
    func lateOrMapped(_ error: any Error, context: RequestContext) -> BusError {
        let mapped = BusError.fromHandler(error, type: R.wireTypeName)
        if mapped.kind == .cancelled, !Task.isCancelled, clock.instant >= context.dueAt {
            return .deadlineExpired(R.wireTypeName)
        }
        return mapped
    }

    nonisolated(nonsending) func handleWire(_ bytes: [UInt8], context: RequestContext) async -> Result<[UInt8], BusError> {
        await wireEntry(self, bytes, context)
    }

    /// Decodes, handles and encodes one request that arrived from a transport.
    @inlinable
    nonisolated(nonsending) func answer(_ bytes: [UInt8], context: RequestContext) async -> Result<[UInt8], BusError> {
        let request: R
        do {
            request = try R(wireEncoded: bytes)
        } catch {
            return .failure(.badMessage("cannot decode \(R.wireTypeName): \(error)"))
        }
        let response: R.Response
        do {
            response = try await call(request, context: context, start: clock.instant)
        } catch {
            return .failure(error)
        }
        do {
            return .success(try response.wireEncoded())
        } catch {
            return .failure(.badMessage("cannot encode \(R.Response.wireTypeName): \(error)"))
        }
    }
}
