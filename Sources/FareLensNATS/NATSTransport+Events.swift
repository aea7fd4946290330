#if NATS
import FareLensBus
import FareLensMessages
import FareLensWire
import Logging
import Synchronization

extension NATSTransport {
    /// A non-durable event from another node: delivered to the local
    /// subscribers in the order NATS handed them over.
    func eventArrived(_ message: NATSMessage) {
        state.withLock { $0.inbound }?.accept(message)
    }

    /// Publishes durable events into the namespace's stream, all in flight
    /// together (several through ``batchConnection``, one through
    /// ``connection``), each sent as `publications` makes it (an event
    /// encoded while the ones before it are on their way), and returns once
    /// the stream has stored them all (every node's consumer will have
    /// them), or gave up on one. An event's id is its message id, so a
    /// repeated publish is dropped by the server: the publishes JetStream
    /// refused or did not acknowledge (no stream leader during an election,
    /// a server restarting) are published again, in order, with backoff
    /// from 50 ms doubling to 1 s, for up to 15 s.
    ///
    /// - Parameter most: how many `publications` may make at most (one:
    ///   sent through ``connection``, written at once).
    /// - Returns: the batch index of the first publication not stored, and
    ///   why (`bad-message` for one over the server's `max_payload`, which
    ///   no retry changes; `service-unavailable` past 15 s or while the
    ///   node leaves); nil and nil when all were stored.
    func publishDurable(_ publications: some Sequence<DurablePublication>, most: Int) async -> (index: Int?, refusal: BusError?) {
        let giveUpAt = ContinuousClock.now + .seconds(15)
        var pause = Duration.milliseconds(50)
        var attempts = 1
        var refused = await sendTogether(publications, most: most)
        // The first publication over the server's max_payload: no retry will
        // store it, so the batch ends there, whatever becomes of those before it.
        var tooLarge: (DurablePublication, NATSError)?
        while true {
            if tooLarge == nil { tooLarge = refused.first { $0.1.code == "too-large" } }
            if let tooLarge { refused.removeAll { $0.0.index >= tooLarge.0.index } }
            guard let first = refused.first else {
                if let (publication, error) = tooLarge {
                    return (publication.index, .badMessage("durable event on '\(publication.topic)' not stored in JetStream: \(error.message)"))
                }
                if attempts > 1 { logger.notice("durable events stored in JetStream after retrying", metadata: ["attempts": "\(attempts)"]) }
                return (nil, nil)
            }
            guard ContinuousClock.now + pause < giveUpAt, !state.withLock({ $0.stopping }) else {
                logger.warning("durable event not stored in JetStream", metadata: ["topic": "\(first.0.topic)", "attempts": "\(attempts)", "reason": "\(first.1)"])
                // Local subscribers have the event; the other nodes' consumers do not.
                return (first.0.index, BusError(kind: .serviceUnavailable, remoteCode: nil, message: "JetStream did not store the durable event on '\(first.0.topic)' in \(attempts) attempts: \(first.1)"))
            }
            if attempts == 1 { logger.warning("JetStream did not store durable events; retrying", metadata: ["topic": "\(first.0.topic)", "refused": "\(refused.count)", "reason": "\(first.1)"]) }
            try? await Task.sleep(for: pause)  // safe: backoff between retries of publishes JetStream refused, bounded by the 15 s above
            pause = min(pause * 2, .seconds(1))
            attempts += 1
            refused = await sendTogether(refused.map(\.0), most: refused.count)
        }
    }

    /// Sends each publication as `publications` makes it, without waiting,
    /// and returns once the stream answered them all: those it refused
    /// (or did not acknowledge), in order, with the reason.
    private func sendTogether(_ publications: some Sequence<DurablePublication>, most: Int) async -> [(DurablePublication, NATSError)] {
        // Many at once go out through the connection that gathers writes; one alone is written at once.
        let connection = most > 1 ? batchConnection : self.connection
        let headers = nodeHeaders
        var sent: [DurablePublication] = []
        sent.reserveCapacity(most)
        let errors = await withCheckedContinuation { (stored: CheckedContinuation<[NATSError?], Never>) in
            let acknowledgements = GatheredAcknowledgements { stored.resume(returning: $0) }
            var subject = (topic: "", name: "")
            for publication in publications {
                if subject.topic != publication.topic { subject = (publication.topic, subjects.durableEvent(publication.topic)) }
                let slot = acknowledgements.expect()
                sent.append(publication)
                connection.publishDurable(
                    subject.name, messageID: publication.messageID, headers: headers, payload: publication.payload,
                    waiter: PendingPublishes.Waiter(acknowledgements: acknowledgements, slot: slot))
            }
            acknowledgements.seal()
        }
        return errors.indices.compactMap { slot in errors[slot].map { (sent[slot], $0) } }
    }
}

/// A durable event encoded for the stream, and where it stands in its batch.
struct DurablePublication: Sendable {
    /// Its index in the batch ``NATSTransport/forward(batch:)`` was handed.
    let index: Int
    let topic: String
    let id: EventID
    let payload: [UInt8]
    /// `Nats-Msg-Id`: the server drops a repeat within its dedupe window.
    var messageID: String { "\(id.publisher)-\(id.sequence)" }
}

/// Non-durable events received and not yet delivered, in order; at the cap
/// further ones are dropped (as a subscriber's full buffer drops them).
final class InboundEvents: Sendable {
    private let continuation: AsyncStream<NATSMessage>.Continuation
    private let delivery: Task<Void, Never>

    init(bus: MessageBus, capacity: Int, logger: Logger) {
        let (stream, continuation) = AsyncStream.makeStream(of: NATSMessage.self, bufferingPolicy: .bufferingOldest(capacity))
        self.continuation = continuation
        delivery = Task {
            for await message in stream {
                guard let envelope = try? WireEnvelope(serializedBytes: message.payload) else {
                    logger.warning("event from NATS not delivered: does not decode", metadata: ["subject": "\(message.subject)"])
                    continue
                }
                await bus.deliver(envelope, logger: logger)
            }
        }
    }

    func accept(_ message: NATSMessage) {
        continuation.yield(message)
    }

    /// Stops: what is queued is dropped.
    func stop() async {
        continuation.finish()
        delivery.cancel()
        await delivery.value
    }
}
#endif
