#if NATS
import FareLensBus
import FareLensMessages
import FareLensWire
import Logging
import NIOPosix

extension NATSTransport {
    /// A non-durable event from another node: delivered to the local
    /// subscribers in the order NATS handed them over.
    func eventArrived(_ message: NATSMessage) {
        state.withLock { $0.inbound }?.accept(message)
    }

    /// Publishes a durable event into the namespace's stream and returns
    /// once the stream has stored it (every node's consumer will have it).
    /// The event's id is the message id, so a repeated publish is dropped
    /// by the server.
    func publishDurable(topic: String, id: EventID, headers: [(String, String)], payload: [UInt8]) async throws(BusError) {
        let connection = self.connection, subject = subjects.durableEvent(topic)
        let messageID = "\(id.publisher)-\(id.sequence)"
        do {
            // The C client blocks until the stream acknowledges: off the concurrency pool.
            try await NIOThreadPool.singleton.runIfActive {
                try connection.publishDurable(subject, messageID: messageID, headers: headers, payload: payload)
            }
        } catch {
            logger.warning("durable event not stored in JetStream", metadata: ["topic": "\(topic)", "reason": "\(error)"])
            // Local subscribers have the event; the other nodes' consumers do not.
            throw BusError(kind: .serviceUnavailable, remoteCode: nil, message: "JetStream did not store the durable event on '\(topic)': \(error)")
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
