#if NATS
public import FareLensBus
public import FareLensMessages
import FareLensWire
import NIOCore

extension NATSTransport {
    /// A request sent and not yet answered.
    struct Waiting {
        /// Resumed exactly once, by whoever removes the entry under the lock
        /// (the reply, the deadline timer, cancellation, a node leaving, the stop).
        let continuation: UnsafeContinuation<Result<WireEnvelope, BusError>, Never>
        let deadline: NIODeadline
        let typeName: String
        let budgetNanoseconds: Int64
        let address: ServiceAddress
        var what: String { "\(typeName) to '\(address)'" }
    }

    /// Publishes a request envelope to its address's subject and waits for
    /// the reply, the deadline, or news that no node serves the address.
    public nonisolated(nonsending) func call(_ request: consuming WireEnvelope, dueAt: BusInstant) async throws(BusError) -> WireEnvelope {
        let budget = dueAt.nanoseconds &- BusInstant.now.nanoseconds
        let typeName = request.typeName
        let address = ServiceAddress(request.address)
        guard budget > 0 else { throw .deadlineExpired("\(typeName) to '\(address)'") }
        let id = state.withLock { state -> UInt64 in
            state.nextID &+= 1
            return state.nextID
        }
        var envelope = request
        envelope.correlationID = id
        envelope.deadlineMicros = UInt64(budget / 1000)
        let bytes: [UInt8]
        do { bytes = try envelope.serializedBytes() } catch { throw .badMessage("cannot encode \(typeName): \(error)") }
        let result = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Result<WireEnvelope, BusError>, Never>) in
                let waiting = Waiting(continuation: continuation, deadline: .now() + .nanoseconds(budget), typeName: typeName, budgetNanoseconds: budget, address: address)
                let (refused, arming): (Bool, RequestDeadlines.Arming?) = state.withLock { state in
                    if state.stopping { return (true, nil) }
                    state.waiting[id] = waiting
                    let arming = state.deadlines.add(id: id, deadline: waiting.deadline, waiting: state.waiting.count) {
                        state.waiting.map { RequestDeadlines.Entry(deadline: $0.value.deadline, id: $0.key) }
                    }
                    return (false, arming)
                }
                if refused {
                    continuation.resume(returning: .failure(.serviceUnavailable(address, reason: "node \(identity.nodeName) is shutting down")))
                    return
                }
                if let arming { arm(arming) }
                do throws(NATSError) {
                    try connection.publish(
                        subjects.request(address.name), reply: subjects.reply(to: identity.nodeName, id: id),
                        headers: [(Header.deadline, "\(budget / 1000)")], payload: bytes)
                } catch where error.code == "too-large" {
                    // The same request would be refused again: the answer, not a passing failure.
                    complete(id, with: .failure(.badMessage("\(typeName) to '\(address)' not sent: \(error.message)")))
                } catch {
                    complete(id, with: .failure(.serviceUnavailable(address, reason: "\(error)")))
                }
                if Task.isCancelled { complete(id, with: .failure(.cancelled(waiting.what))) }
            }
        } onCancel: {
            complete(id, with: .failure(.cancelled("\(typeName) to '\(address)'")))
        }
        return try result.get()
    }

    /// A message on this node's reply subject: a reply, or the server's
    /// "no responders" when no node subscribes to the address.
    func replied(_ message: NATSMessage) {
        guard let last = message.subject.split(separator: ".").last, let id = UInt64(last) else { return }
        if message.isNoResponders {
            let address = state.withLock { $0.waiting[id]?.address }
            guard let address else { return }
            complete(id, with: .failure(.serviceUnavailable(address, reason: "no node serves it on NATS (no responders on '\(subjects.request(address.name))')")))
            return
        }
        do {
            complete(id, with: .success(try WireEnvelope(serializedBytes: message.payload)))
        } catch {
            complete(id, with: .failure(.badMessage("a reply from NATS does not decode: \(error)")))
        }
    }

    /// A request for an address this node serves: answered by the local
    /// handler, the reply published to the caller's reply subject.
    func asked(_ message: NATSMessage) {
        guard let reply = message.reply else { return }
        var envelope: WireEnvelope
        do {
            envelope = try WireEnvelope(serializedBytes: message.payload)
        } catch {
            logger.warning("request from NATS not answered: does not decode", metadata: ["subject": "\(message.subject)", "reason": "\(error)"])
            return
        }
        // The deadline travels in a header: the budget left when it was sent.
        if let micros = message.header(Header.deadline).flatMap(UInt64.init) { envelope.deadlineMicros = micros }
        // The reply goes out on the connection the request came in on: a
        // server that lets a user answer only the requests delivered to it
        // (`allow_responses`, ops/nats/permissions.conf) judges it there.
        let bus = self.bus, connection = self.requestConnection, logger = self.logger
        // Counted before it starts, so a leaving node waits for its answer
        // before closing the connection.
        state.withLock { $0.answering += 1 }
        // Started here, on this address's own delivery thread
        // (``requestConnection``), as nats.c's responder answers in its
        // callback: an inline handler's answer is written before this returns,
        // without waking another thread. After its first suspension the
        // handler goes on on the transport's event loop.
        Task.immediate(executorPreference: executor) { [self] in
            let response = await bus.answer(envelope, isAdmin: envelope.callerIsAdmin)
            do {
                do {
                    try connection.publish(reply, payload: try response.serializedBytes())
                } catch let error as NATSError where error.code == "too-large" {
                    // The caller hears why instead of waiting for its deadline.
                    let refusal = WireEnvelope.response(
                        to: envelope.correlationID, result: .failure(.badMessage("the response to \(envelope.typeName) was not sent: \(error.message)")), typeName: "")
                    try connection.publish(reply, payload: try refusal.serializedBytes())
                }
            } catch {
                logger.warning("reply not sent over NATS", metadata: ["address": "\(envelope.address)", "reason": "\(error)"])
            }
            answered()
        }
    }

    private func answered() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.answering -= 1
            guard state.answering == 0 else { return [] }
            defer { state.answeringDone = [] }
            return state.answeringDone
        }
        waiters.forEach { $0.resume() }
    }

    /// Returns once every request from another node this node started
    /// answering has been answered (each is bounded by its deadline).
    func answersInFlight() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state in
                if state.answering == 0 { return true }
                state.answeringDone.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// Fails, at once, the requests waiting on addresses no known node
    /// serves any more (`left` just went away).
    func failRequestsNobodyServes(left: [String]) {
        let orphaned = state.withLock { state -> [Waiting] in
            let ids = state.waiting.filter { !state.registry.hosts($0.value.address.name) }.map(\.key)
            return ids.compactMap { state.waiting.removeValue(forKey: $0) }
        }
        for waiting in orphaned {
            waiting.continuation.resume(returning: .failure(.serviceUnavailable(waiting.address, reason: "node \(left.joined(separator: ", ")) left before answering")))
        }
    }

    /// Fails, at once, every request waiting on `address`.
    func failRequests(to address: ServiceAddress, with error: BusError) {
        let failed = state.withLock { state -> [Waiting] in
            let ids = state.waiting.filter { $0.value.address == address }.map(\.key)
            return ids.compactMap { state.waiting.removeValue(forKey: $0) }
        }
        for waiting in failed { waiting.continuation.resume(returning: .failure(error)) }
    }

    /// Fails every waiting request (the transport stops).
    func failAllWaiting(reason: String) {
        let all = state.withLock { state -> [Waiting] in
            defer { state.waiting = [:]; state.deadlines.removeAll() }
            return Array(state.waiting.values)
        }
        for waiting in all { waiting.continuation.resume(returning: .failure(.serviceUnavailable(waiting.address, reason: reason))) }
    }

    private func complete(_ id: UInt64, with result: Result<WireEnvelope, BusError>) {
        guard let waiting = state.withLock({ $0.waiting.removeValue(forKey: id) }) else { return }
        waiting.continuation.resume(returning: result)
    }

    private func arm(_ arming: RequestDeadlines.Arming) {
        timers.scheduleTask(deadline: arming.deadline) { [self] in expire(arming.generation) }
    }

    private func expire(_ generation: UInt64) {
        let (expired, next) = state.withLock { state -> ([Waiting], RequestDeadlines.Arming?) in
            let (ids, next) = state.deadlines.fire(generation: generation, now: .now()) { state.waiting[$0] != nil }
            return (ids.compactMap { state.waiting.removeValue(forKey: $0) }, next)
        }
        if let next { arm(next) }
        for waiting in expired {
            waiting.continuation.resume(returning: .failure(.timeout(waiting.what, after: .nanoseconds(waiting.budgetNanoseconds))))
        }
    }
}
#endif
