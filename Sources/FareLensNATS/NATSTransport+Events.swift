#if NATS
import FareLensBus
import FareLensMessages
import FareLensWire
import Logging

extension NATSTransport {
    /// A non-durable event from another node: delivered to the local
    /// subscribers in the order NATS handed them over.
    func eventArrived(_ message: NATSMessage) {
        state.withLock { $0.inbound }?.accept(message)
    }

    /// Publishes a durable event into the namespace's stream and returns
    /// once the stream has stored it (every node's consumer will have it).
    /// The event's id is the message id, so a repeated publish is dropped
    /// by the server: a publish JetStream refused or did not acknowledge
    /// (no stream leader during an election, a server restarting) is
    /// retried, with backoff from 50 ms doubling to 1 s, for up to 15 s.
    func publishDurable(topic: String, id: EventID, headers: [(String, String)], payload: [UInt8]) async throws(BusError) {
        let connection = self.connection, subject = subjects.durableEvent(topic)
        let messageID = "\(id.publisher)-\(id.sequence)"
        let giveUpAt = ContinuousClock.now + .seconds(15)
        var pause = Duration.milliseconds(50)
        var attempts = 0
        while true {
            attempts += 1
            let refusal = await withCheckedContinuation { (stored: CheckedContinuation<NATSError?, Never>) in
                connection.publishDurable(subject, messageID: messageID, headers: headers, payload: payload) { stored.resume(returning: $0) }
            }
            guard let error = refusal else {
                if attempts > 1 { logger.notice("durable event stored in JetStream after retrying", metadata: ["topic": "\(topic)", "attempts": "\(attempts)"]) }
                return
            }
            // Too large for the server: no retry will change that.
            if error.code == "too-large" { throw .badMessage("durable event on '\(topic)' not stored in JetStream: \(error.message)") }
            guard ContinuousClock.now + pause < giveUpAt, !state.withLock({ $0.stopping }) else {
                logger.warning("durable event not stored in JetStream", metadata: ["topic": "\(topic)", "attempts": "\(attempts)", "reason": "\(error)"])
                // Local subscribers have the event; the other nodes' consumers do not.
                throw BusError(kind: .serviceUnavailable, remoteCode: nil, message: "JetStream did not store the durable event on '\(topic)' in \(attempts) attempts: \(error)")
            }
            if attempts == 1 { logger.warning("JetStream did not store a durable event; retrying", metadata: ["topic": "\(topic)", "reason": "\(error)"]) }
            try? await Task.sleep(for: pause)  // safe: backoff between retries of a publish JetStream refused, bounded by the 15 s above
            pause = min(pause * 2, .seconds(1))
        }
    }
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
