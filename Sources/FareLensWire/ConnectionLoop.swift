package import FareLensBus
package import FareLensMessages
package import Logging
import Metrics
import Synchronization

/// The per-connection work both ends share, once the hello is done:
/// requests are answered concurrently (each in a task of its own that
/// prefers the connection's event loop: ``InboundRequests``), events are
/// delivered one at a time in arrival order (FIFO per publisher),
/// acknowledgements and control messages are handled as they come. Returns
/// when the connection closes.
struct ConnectionLoop: Sendable {
    let connection: PeerConnection
    let configuration: BridgeConfiguration
    let peerName: String
    /// Answers one REQUEST; the result is sent back as its RESPONSE.
    let answer: InboundRequests.Answer
    /// Delivers one EVENT (and acknowledges it when durable).
    let deliver: @Sendable (WireEnvelope) async -> Void
    /// Handles EVENT_ACK.
    let acknowledge: @Sendable ([UInt64]) -> Void
    /// Handles ROUTES (spokes only); nil where it is a protocol violation.
    var routes: (@Sendable (WireRoutes) -> Void)?

    func run() async {
        let dropped = Counter(label: "farelens_wire_events_dropped_total", dimensions: [("peer", peerName)])
        let (events, eventsContinuation) = AsyncStream.makeStream(of: WireEnvelope.self)
        let counts = LoopCounts()
        // A closed connection releases a reading loop waiting for room.
        connection.whenClosed { counts.room.close() }
        connection.requests.install(limit: configuration.maxInFlightPerConnection, answer: answer)
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await event in events {
                    await deliver(event)
                    counts.delivered(event)
                    counts.room.signal()
                }
                counts.room.close()
            }
            for await envelope in connection.inbound {
                switch envelope.kind {
                case .request:
                    // Arrived before the answer was installed (just after
                    // the hello); every later one is started on the loop.
                    _ = connection.requests.start(envelope, on: connection)
                case .event:
                    if envelope.event.durable {
                        // A durable event is never dropped. Up to the durable budget it waits in memory and the socket
                        // is read on, so a response or acknowledgement behind it is not held up by a subscriber that
                        // is busy waiting for it. Beyond the budget (a peer over its own backlog cap) this connection
                        // stops being taken from until there is room (its socket then stops being read).
                        if !counts.hasDurableRoom(configuration) {
                            await counts.room.wait(until: { counts.hasDurableRoom(configuration) })
                        }
                    } else if counts.queuedEvents.load(ordering: .relaxed) >= configuration.inboundEventBuffer {
                        dropped.increment()
                        continue
                    }
                    counts.queued(envelope)
                    eventsContinuation.yield(envelope)
                case .eventAck:
                    acknowledge(envelope.ackedTags)
                case .routes where routes != nil:
                    routes?(envelope.routes)
                case .goodbye:
                    connection.logger.notice("peer is closing the connection", metadata: ["peer": "\(peerName)", "reason": "\(envelope.error.message)"])
                default:
                    let violation = WireProtocolError.unexpectedMessage("\(envelope.kind) is not allowed after the hello")
                    connection.logger.warning("closing bridge connection", metadata: ["peer": "\(peerName)", "reason": "\(violation)"])
                    connection.close(reason: violation.description)
                }
            }
            eventsContinuation.finish()
            // The connection is gone: durable events not yet handed to a
            // subscriber are dropped unacknowledged (their sender redelivers
            // them when the link returns), and a delivery waiting for room
            // in a full subscriber stops waiting. (Requests being answered
            // were cancelled when the connection closed.)
            group.cancelAll()
        }
    }
}

/// Events queued for delivery on one connection: all of them, and the
/// durable ones with their payload bytes.
private final class LoopCounts: Sendable {
    let queuedEvents = Atomic<Int>(0)
    let durableEvents = Atomic<Int>(0)
    let durableBytes = Atomic<Int>(0)
    let room = RoomSignal()

    /// Whether another durable event fits within the configured budget.
    func hasDurableRoom(_ configuration: BridgeConfiguration) -> Bool {
        durableEvents.load(ordering: .relaxed) < configuration.inboundDurableEvents
            && durableBytes.load(ordering: .relaxed) < configuration.inboundDurableBytes
    }

    func queued(_ event: WireEnvelope) {
        queuedEvents.add(1, ordering: .relaxed)
        guard event.event.durable else { return }
        durableEvents.add(1, ordering: .relaxed)
        durableBytes.add(event.payload.count, ordering: .relaxed)
    }

    func delivered(_ event: WireEnvelope) {
        queuedEvents.subtract(1, ordering: .relaxed)
        guard event.event.durable else { return }
        durableEvents.subtract(1, ordering: .relaxed)
        durableBytes.subtract(event.payload.count, ordering: .relaxed)
    }
}

/// Wakes a task waiting for room in a bounded queue. One waiter at a time
/// (the connection's reading loop); closed when the consumer ends.
final class RoomSignal: Sendable {
    private let state = Mutex(RoomSignalState<CheckedContinuation<Void, Never>>())

    /// Waits until `hasRoom()` holds, or the signal is closed.
    func wait(until hasRoom: () -> Bool) async {
        while !hasRoom() {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if state.withLock({ $0.wait(continuation, hasRoom: hasRoom()) }) { continuation.resume() }
            }
            if state.withLock({ $0.isClosed }) { return }
        }
    }

    /// Room was made.
    func signal() {
        state.withLock { $0.signal() }?.resume()
    }

    /// The consumer is gone: release the waiter for good.
    func close() {
        state.withLock { $0.close() }?.resume()
    }
}

/// ``RoomSignal``'s state machine, without I/O: whether it is closed, and
/// who waits. Generic over the waiter, so its tests need no task.
struct RoomSignalState<Waiter> {
    private enum State {
        case open(waiter: Waiter?)
        case closed
    }

    private var state: State = .open(waiter: nil)

    var isClosed: Bool {
        if case .closed = state { true } else { false }
    }

    /// Keeps `waiter` and returns false; returns true (resume it now)
    /// when the signal is closed or there is room already.
    mutating func wait(_ waiter: Waiter, hasRoom: Bool) -> Bool {
        guard case .open = state, !hasRoom else { return true }
        state = .open(waiter: waiter)
        return false
    }

    /// Room was made: the waiter to resume, if one waits.
    mutating func signal() -> Waiter? {
        guard case .open(let waiter) = state else { return nil }
        state = .open(waiter: nil)
        return waiter
    }

    /// Closed for good: the waiter to resume, if one waits.
    mutating func close() -> Waiter? {
        defer { state = .closed }
        if case .open(let waiter) = state { return waiter }
        return nil
    }
}

extension MessageBus {
    /// Answers a REQUEST envelope from the local handlers.
    package nonisolated(nonsending) func answer(_ request: WireEnvelope, isAdmin: Bool) async -> WireEnvelope {
        let context = RequestContext(dueAt: request.dueAt, traceID: request.trace.traceID, isAdmin: isAdmin)
        let result = await handleEncodedRequest(typeName: request.typeName, address: ServiceAddress(request.address), payload: Array(request.payload), context: context)
        return .response(to: request.correlationID, result: result, typeName: "")
    }

    /// Delivers an EVENT envelope to the local subscribers. `onSettled`
    /// runs once every local subscriber is done with a durable event (at
    /// once for one that cannot be delivered: its type is unknown here or it
    /// does not decode, which is logged — keeping it would only block its
    /// sender).
    package func deliver(_ envelope: WireEnvelope, logger: Logger, onSettled: (@Sendable () -> Void)? = nil) async {
        do {
            try await deliverEncodedEvent(
                typeName: envelope.typeName, payload: Array(envelope.payload), id: envelope.eventID,
                traceID: envelope.trace.traceID, onSettled: onSettled
            )
        } catch {
            logger.warning("event from the bridge not delivered", metadata: ["type": "\(envelope.typeName)", "reason": "\(error)"])
            onSettled?()
        }
    }
}

extension WireEnvelope {
    /// An EVENT_ACK for delivery tags.
    static func acknowledgement(_ tags: [UInt64]) -> WireEnvelope {
        var envelope = WireEnvelope()
        envelope.kind = .eventAck
        envelope.ackedTags = tags
        return envelope
    }
}
