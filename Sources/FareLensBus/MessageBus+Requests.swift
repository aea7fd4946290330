import NIOConcurrencyHelpers

extension MessageBus {
    /// Sends a request and waits for its typed response.
    ///
    /// - Parameters:
    ///   - request: the request; its type names the address and response type.
    ///   - timeout: the budget for this call; defaults to the configured deadline.
    ///   - parent: the context of the request being handled, when this call is
    ///     made by a handler: the new request keeps its trace id and never
    ///     gets a later deadline.
    ///   - address: where to send it, for a request type served at a
    ///     per-instance address (such as one node's `admin.node.<name>`);
    ///     defaults to `R.address`.
    /// - Throws: ``BusError`` — `timeout`, `serviceUnavailable`, `overloaded`,
    ///   `cancelled`, `remote` or `badMessage`; nothing else.
    ///
    /// Inlinable, and it runs on the caller's executor (`nonsending`): a
    /// request to a handler in this process is specialised to `R` in the
    /// caller's module and costs no executor hop of its own.
    @inlinable
    public nonisolated(nonsending) func request<R: BusRequest>(_ request: R, timeout: Duration? = nil, parent: RequestContext? = nil, to address: ServiceAddress? = nil) async throws(BusError) -> R.Response {
        // One clock read serves the deadline and the start of the latency metric.
        let now = self.now
        let context = makeContext(now: now, timeout: timeout, parent: parent)
        let address = address ?? R.address
        if let route = localRoute(for: ObjectIdentifier(R.self), at: address) {
            // safe: a route is filed under its own request type's identity (RouteTable.insert), so it is a TypedRoute<R>.
            return try await unsafeDowncast(route, to: TypedRoute<R>.self).call(request, context: context, start: now)
        }
        return try await requestElsewhere(request, to: address, context: context)
    }

    /// Now on the bus's clock (``BusConfiguration/clock``), what a request's
    /// deadline is made on: the continuous clock read directly, any other
    /// through ``readClock()``.
    @inlinable
    public var now: BusInstant {
        onContinuousClock ? BusInstant.now : readClock()
    }

    /// Now on the bus's clock when it is not the continuous one. Not
    /// inlinable on purpose: the clock read inline (its closures copied out
    /// of the configuration) made the in-process request 12% slower even on
    /// the continuous clock, which never takes this path (docs/performance.md,
    /// "Deadlines on the bus's clock").
    @usableFromInline
    func readClock() -> BusInstant {
        configuration.clock.instant
    }

    /// The handler of request type `type` in this process, if it serves it at `address`.
    @usableFromInline
    func localRoute(for type: ObjectIdentifier, at address: ServiceAddress) -> AnyObject? {
        guard let route = routes.withLockedValue({ $0.byType[type] }), route.address == address else { return nil }
        return route
    }

    /// A request with no handler for its type at `address` in this process:
    /// sent through the transport that hosts the address, or refused.
    @usableFromInline
    nonisolated(nonsending) func requestElsewhere<R: BusRequest>(_ request: R, to address: ServiceAddress, context: RequestContext) async throws(BusError) -> R.Response {
        if let transport = transports.withLockedValue({ $0.first { $0.hosts(address) } }) {
            // The time left, spent on the wire in real time: the other process cannot see this bus's clock.
            var leaving = context
            leaving.dueAt = configuration.clock.onRealTime(context.dueAt)
            return try await transport.send(request, to: address, context: leaving)
        }
        if routes.withLockedValue({ $0.slots[address] != nil }) {
            throw .badMessage("service '\(address)' has no handler for \(R.wireTypeName)")
        }
        throw .serviceUnavailable(address)
    }

    /// The context of a new outgoing request: its own deadline, capped by the
    /// one inherited from the request being handled, and the inherited trace.
    @usableFromInline
    func makeContext(now: BusInstant, timeout: Duration?, parent: RequestContext?) -> RequestContext {
        let own = now.advanced(by: timeout ?? configuration.defaultDeadline)
        guard let inherited = parent else {
            return RequestContext(dueAt: own, traceID: nextTraceID())
        }
        return RequestContext(dueAt: min(own, inherited.dueAt), traceID: inherited.traceID, isAdmin: inherited.isAdmin)
    }

    /// Registers the handler of request type `R` at `R.address`.
    ///
    /// The handler must return `R.Response`; the compiler rejects any other
    /// pairing. A second handler for the same type is refused.
    ///
    /// - Parameters:
    ///   - address: serve it at this address instead of `R.address` (a
    ///     per-instance address such as `admin.node.<name>`); a bus serves a
    ///     request type at one address only.
    ///   - execution: ``HandlerExecution/inline`` (default) or ``HandlerExecution/isolated``.
    ///   - maxInFlight: the in-flight bound of the whole address, set by its
    ///     first registration; defaults to the configuration's.
    ///
    /// Inlinable: the entry point for requests that arrive encoded from
    /// other nodes is made here, where `R` is known, so they too run code
    /// specialised to `R` (decoding, the handler call, encoding).
    @inlinable
    @discardableResult
    public func serve<R: BusRequest>(
        _ type: R.Type,
        at address: ServiceAddress? = nil,
        execution: HandlerExecution = .inline,
        maxInFlight: Int? = nil,
        handler: nonisolated(nonsending) @escaping @Sendable (R, RequestContext) async throws -> R.Response
    ) throws(BusError) -> ServiceAddress {
        try register(type, at: address, execution: execution, maxInFlight: maxInFlight, handler: handler) { route, bytes, context in
            await route.answer(bytes, context: context)
        }
    }

    /// Files the route of `R` (``serve(_:at:execution:maxInFlight:handler:)``).
    @usableFromInline
    func register<R: BusRequest>(
        _ type: R.Type,
        at address: ServiceAddress?,
        execution: HandlerExecution,
        maxInFlight: Int?,
        handler: @escaping TypedRoute<R>.Handler,
        wireEntry: @escaping TypedRoute<R>.WireEntry
    ) throws(BusError) -> ServiceAddress {
        let limit = maxInFlight ?? configuration.maxInFlightPerService
        let address = address ?? R.address
        // The lock's closure cannot throw a typed error: the outcome leaves it as a value.
        let filed: Result<Void, BusError> = routes.withLockedValue { table in
            let slot = table.slot(for: address, limit: limit)
            let route = TypedRoute<R>(
                slot: slot, execution: execution, clock: configuration.clock, watchdog: watchdog, metricsFactory: configuration.metricsFactory,
                handler: handler, wireEntry: wireEntry
            )
            return Result { () throws(BusError) in try table.insert(route, for: type) }
        }
        try filed.get()
        return address
    }

    /// Stops accepting requests for `address` (new ones fail with
    /// `serviceUnavailable`), then waits until its in-flight requests end.
    public func drain(_ address: ServiceAddress) async {
        let slot = routes.withLockedValue { $0.slots[address] }
        await slot?.drain()
        _ = routes.withLockedValue { $0.removeAll(at: address) }
    }

    /// Handles a request that arrived encoded from a transport.
    ///
    /// - Parameter address: the address the request was sent to; a type
    ///   that belongs to another address is refused, so a peer cannot reach
    ///   an admin-only handler through an ordinary address.
    ///
    /// Runs on the caller's executor (`nonsending`), as an inline handler
    /// does: the bridge calls it from a task on the connection's event loop.
    public nonisolated(nonsending) func handleEncodedRequest(typeName: String, address: ServiceAddress, payload: [UInt8], context: RequestContext) async -> Result<[UInt8], BusError> {
        guard let route = routes.withLockedValue({ $0.byWireName[typeName] }) else {
            return .failure(.badMessage("no handler for message type '\(typeName)' on node \(configuration.nodeName)"))
        }
        guard route.address == address else {
            return .failure(.badMessage("message type '\(typeName)' belongs to '\(route.address)', not '\(address)'"))
        }
        // Its deadline as the time left on this bus's clock (a test's clock may be far from real time).
        var arrived = context
        arrived.dueAt = configuration.clock.fromRealTime(context.dueAt)
        return await route.handleWire(payload, context: arrived)
    }
}
