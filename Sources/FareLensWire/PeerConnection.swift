import FareLensBus
import FareLensMessages
import Logging
import NIOConcurrencyHelpers
import NIOCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One bridge connection, hub side or spoke side: correlates requests with
/// responses, enforces their deadlines, and hands everything else to the
/// owner through ``inbound`` in arrival order.
///
/// When the connection closes, every request still waiting on it fails at
/// once with `service-unavailable` and ``inbound`` finishes.
final class PeerConnection: Sendable {
    let channel: any Channel
    let logger: Logger
    /// Envelopes other than RESPONSE, in arrival order. Bounded: once
    /// ``inboundHighWater`` are waiting, the connection stops reading from
    /// the socket (the peer's writes back up in its kernel buffer) until
    /// the owner has taken them down to half that.
    var inbound: InboundEnvelopes { InboundEnvelopes(stream: inboundStream, connection: self) }
    private let inboundStream: AsyncStream<WireEnvelope>
    private let inboundContinuation: AsyncStream<WireEnvelope>.Continuation
    /// Envelopes received and not yet taken by the owner.
    private let queuedInbound = Atomic<Int>(0)
    /// Whether reading from the socket is paused because too many wait.
    private let readingPaused = Atomic<Bool>(false)
    /// Most envelopes waiting before reading pauses.
    let inboundHighWater: Int
    /// The default of ``inboundHighWater``.
    static let defaultInboundHighWater = 1024
    /// A pthread mutex (decision 0015): the calling threads and the event
    /// loop take it at once when many requests are in flight.
    private let state = NIOLockedValueBox(State())
    /// What this connection writes, framed and batched (``OutboundFrames``).
    private let outbound: OutboundFrames

    /// The REQUESTs this connection is answering (started on the event loop
    /// once the owner installs its answer).
    let requests: InboundRequests

    private struct Waiting {
        /// Resumed exactly once: by whoever removes this entry from
        /// `State.waiting` under the lock (the response, the deadline timer,
        /// cancellation or the close).
        let continuation: UnsafeContinuation<Result<WireEnvelope, BusError>, Never>
        let deadline: NIODeadline
        /// The type asked and the budget it had, for a failure's message.
        let typeName: String
        let budgetNanoseconds: Int64
        /// The address asked, so a failure names it.
        let address: ServiceAddress

        /// "TYPE to 'ADDRESS'", built only when a failure needs it.
        var what: String { PeerConnection.describe(typeName, address) }
    }

    /// How a failure names a request: "TYPE to 'ADDRESS'".
    static func describe(_ typeName: String, _ address: ServiceAddress) -> String { "\(typeName) to '\(address)'" }

    private struct State {
        var waiting: [UInt64: Waiting] = [:]
        var deadlines = RequestDeadlines()
        var nextCorrelationID: UInt64 = 0
        var lifecycle = PeerLifecycle()
    }

    /// Runs `action` once the connection has closed (at once if it has).
    func whenClosed(_ action: @escaping @Sendable () -> Void) {
        state.withLockedValue { $0.lifecycle.whenClosed(action) }?()
    }

    /// Its frame and byte counters, when it has them (a hub names them after the hello).
    let metrics: ConnectionMetrics?
    /// The frame and inflation caps and the compression threshold, both ways.
    let limits: WireLimits

    init(channel: any Channel, logger: Logger, limits: WireLimits, metrics: ConnectionMetrics? = nil, inboundHighWater: Int = PeerConnection.defaultInboundHighWater) {
        self.channel = channel
        self.logger = logger
        self.metrics = metrics
        self.limits = limits
        self.outbound = OutboundFrames(channel: channel, limits: limits, metrics: metrics, logger: logger)
        self.inboundHighWater = max(2, inboundHighWater)
        self.requests = InboundRequests(eventLoop: channel.eventLoop)
        (inboundStream, inboundContinuation) = AsyncStream.makeStream(of: WireEnvelope.self)
    }

    /// Envelopes received and not yet taken by the owner (tests, status).
    var inboundWaiting: Int { queuedInbound.load(ordering: .relaxed) }

    /// Whether the peer has sent anything yet (an envelope reached ``inbound``).
    /// A hello timer asks this, not whether its task has read the hello: on
    /// a starved machine the task can resume seconds after the hello came,
    /// and closing then would drop a peer that answered in time.
    var hasReceived: Bool { receivedAny.load(ordering: .relaxed) }
    private let receivedAny = Atomic<Bool>(false)

    /// Called on the event loop for each envelope handed to ``inbound``.
    private func queuedOne() {
        receivedAny.store(true, ordering: .relaxed)
        guard queuedInbound.add(1, ordering: .relaxed).newValue >= inboundHighWater,
              !readingPaused.exchange(true, ordering: .relaxed) else { return }
        channel.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in }
    }

    /// Called by ``InboundEnvelopes`` for each envelope the owner takes.
    func tookOne() {
        guard queuedInbound.subtract(1, ordering: .relaxed).newValue <= inboundHighWater / 2,
              readingPaused.load(ordering: .relaxed) else { return }
        channel.eventLoop.execute { [self] in
            guard readingPaused.exchange(false, ordering: .relaxed) else { return }
            channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
            channel.read()
        }
    }

    /// Requests waiting for a response.
    var inFlight: Int { state.withLockedValue { $0.waiting.count } }

    /// Writes an envelope (from any thread), in call order: serialized and
    /// framed on the calling thread, then written and flushed together with
    /// the frames sent around it (64 pipelined requests become a few `writev`
    /// calls, not 64; ``OutboundFrames``).
    func send(_ envelope: WireEnvelope) {
        outbound.send(envelope)
    }

    /// Sends a REQUEST and waits for its RESPONSE until `dueAt`. A
    /// failure names the request by its envelope's type and address.
    ///
    /// - Throws: `timeout` at the deadline, `cancelled` if the calling task
    ///   is cancelled, `service-unavailable` if the connection closes first.
    nonisolated(nonsending) func call(_ request: consuming WireEnvelope, dueAt: BusInstant) async throws(BusError) -> WireEnvelope {
        let budget = dueAt.nanoseconds &- BusInstant.now.nanoseconds
        let typeName = request.typeName
        let address = ServiceAddress(request.address)
        guard budget > 0 else { throw .deadlineExpired(Self.describe(typeName, address)) }
        let id = state.withLockedValue { state -> UInt64 in
            state.nextCorrelationID &+= 1
            return state.nextCorrelationID
        }
        // Set on the caller's own copy: one the caller still held would be
        // copied (the envelope's storage is shared until written).
        var envelope = request
        envelope.correlationID = id
        envelope.deadlineMicros = UInt64(budget / 1000)
        let result = await withTaskCancellationHandler {
            // Unsafe rather than checked (a request's hot path): `Waiting` says who resumes it, once.
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Result<WireEnvelope, BusError>, Never>) in
                let waiting = Waiting(continuation: continuation, deadline: .now() + .nanoseconds(budget), typeName: typeName, budgetNanoseconds: budget, address: address)
                let (refused, arming): (String?, RequestDeadlines.Arming?) = state.withLockedValue { state in
                    if let reason = state.lifecycle.closeReason { return (reason, nil) }
                    state.waiting[id] = waiting
                    let arming = state.deadlines.add(id: id, deadline: waiting.deadline, waiting: state.waiting.count) {
                        state.waiting.map { RequestDeadlines.Entry(deadline: $0.value.deadline, id: $0.key) }
                    }
                    return (nil, arming)
                }
                if let refused {
                    continuation.resume(returning: .failure(.serviceUnavailable(waiting.address, reason: refused)))
                    return
                }
                if let arming { arm(arming) }
                send(envelope)
                if Task.isCancelled { complete(id, with: .failure(.cancelled(waiting.what))) }
            }
        } onCancel: {
            complete(id, with: .failure(.cancelled(Self.describe(typeName, address))))
        }
        return try result.get()
    }

    private func complete(_ id: UInt64, with result: Result<WireEnvelope, BusError>) {
        guard let waiting = state.withLockedValue({ $0.waiting.removeValue(forKey: id) }) else { return }
        waiting.continuation.resume(returning: result)
    }

    /// Arms the connection's deadline timer (``RequestDeadlines``).
    private func arm(_ arming: RequestDeadlines.Arming) {
        channel.eventLoop.scheduleTask(deadline: arming.deadline) { [self] in
            expire(arming.generation)
        }
    }

    /// The deadline timer fired: fails every request whose deadline passed.
    private func expire(_ generation: UInt64) {
        let (expired, next) = state.withLockedValue { state -> ([Waiting], RequestDeadlines.Arming?) in
            let (ids, next) = state.deadlines.fire(generation: generation, now: .now()) { state.waiting[$0] != nil }
            return (ids.compactMap { state.waiting.removeValue(forKey: $0) }, next)
        }
        if let next { arm(next) }
        for waiting in expired {
            waiting.continuation.resume(returning: .failure(.timeout(waiting.what, after: .nanoseconds(waiting.budgetNanoseconds))))
        }
    }

    /// Called on the event loop for each decoded envelope.
    func received(_ envelope: WireEnvelope) {
        if envelope.kind == .response {
            WireTimeline.mark(.responseDecoded)
            complete(envelope.correlationID, with: .success(envelope))
        } else if envelope.kind == .request, requests.start(envelope, on: self) {
            receivedAny.store(true, ordering: .relaxed)
        } else {
            inboundContinuation.yield(envelope)
            queuedOne()
        }
    }

    /// Called once when the channel becomes inactive: fails every waiting
    /// request and ends ``inbound``.
    func closed(reason: String) {
        let (waiting, onClose) = state.withLockedValue { state -> ([Waiting], [@Sendable () -> Void]) in
            defer { state.waiting.removeAll(); state.deadlines.removeAll() }
            return (Array(state.waiting.values), state.lifecycle.close(reason: reason))
        }
        requests.cancelAll()
        WireTimeline.flush()
        for action in onClose { action() }
        for entry in waiting {
            entry.continuation.resume(returning: .failure(.serviceUnavailable(entry.address, reason: "the node hosting it went away (\(reason))")))
        }
        inboundContinuation.finish()
    }

    /// Closes the connection, first telling the peer why: once everything
    /// sent before the GOODBYE and the GOODBYE itself are written, or after
    /// ``goodbyeGrace`` if a peer that is not reading holds them up.
    func close(reason: String) {
        outbound.send(.goodbye(reason))
        outbound.afterWritten { [channel] in channel.close(promise: nil) }
        // Closing a channel that is already closed does nothing.
        channel.eventLoop.scheduleTask(in: Self.goodbyeGrace) { [channel] in channel.close(promise: nil) }
    }

    /// Sends GOODBYE to a peer refused at the handshake, then stops writing
    /// but reads on until the peer closes (or `grace` passes).
    ///
    /// Closed at once, the hub would leave the peer's hello unread in its
    /// socket, and Linux resets a Unix socket closed with unread data: a
    /// peer still writing its hello then failed with a broken pipe before it
    /// read the GOODBYE, and learnt only that "the hub closed the
    /// connection", not why (docs/wire-protocol.md § 5.1).
    func refuse(reason: String, grace: TimeAmount) {
        outbound.send(.goodbye(reason))
        outbound.afterWritten { [channel] in
            channel.close(mode: .output).whenFailure { _ in channel.close(promise: nil) }
        }
        channel.eventLoop.scheduleTask(in: grace) { [channel] in channel.close(promise: nil) }
    }

    /// How long a close waits for its GOODBYE to be written (docs/wire-protocol.md § 3.4).
    static let goodbyeGrace: TimeAmount = .seconds(2)
}

/// The last handler of a bridge pipeline: closes the connection on any
/// protocol error, logging the named reason, and when the channel goes inactive.
final class PeerConnectionHandler: ChannelInboundHandler, Sendable {
    /// Nothing reaches it: the decoder hands envelopes to the connection itself.
    typealias InboundIn = Never
    let connection: PeerConnection

    init(connection: PeerConnection) { self.connection = connection }

    func channelInactive(context: ChannelHandlerContext) {
        connection.logger.debug("bridge connection closed")
        connection.closed(reason: "connection closed")
        context.fireChannelInactive()
    }

    /// A protocol fault or a connection that ended inside a frame is logged
    /// as a warning; a peer that simply went away (reset, broken pipe) is an
    /// ordinary disconnect, logged as a notice (docs/wire-protocol.md 3.4).
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let reason: String
        if let wire = error as? WireProtocolError {
            reason = wire.description
        } else if let decoder = error as? ByteToMessageDecoderError, case .leftoverDataWhenDone = decoder {
            reason = "connection ended inside a frame"
        } else {
            reason = String(describing: error)
        }
        if Self.isOrdinaryDisconnect(error) {
            connection.logger.notice("peer disconnected", metadata: ["reason": "\(reason)"])
        } else {
            connection.logger.warning("closing bridge connection", metadata: ["reason": "\(reason)"])
        }
        connection.closed(reason: reason)
        context.close(promise: nil)
    }

    /// A reset or broken pipe: the peer closed without reading everything
    /// (an admin client that exits after its answer), not a fault.
    static func isOrdinaryDisconnect(_ error: any Error) -> Bool {
        guard let io = error as? IOError else { return false }
        return io.errnoCode == ECONNRESET || io.errnoCode == EPIPE
    }
}

/// The envelopes of one connection as its owner reads them: each one taken
/// tells the connection, which resumes reading from the socket once enough
/// have been taken (see ``PeerConnection/inbound``).
struct InboundEnvelopes: AsyncSequence, Sendable {
    let stream: AsyncStream<WireEnvelope>
    let connection: PeerConnection

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<WireEnvelope>.AsyncIterator
        let connection: PeerConnection

        mutating func next() async -> WireEnvelope? {
            guard let envelope = await base.next() else { return nil }
            connection.tookOne()
            return envelope
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator(), connection: connection) }
}
