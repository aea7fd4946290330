#if NATS
import FareLensBus
import FareLensMessages
import FareLensWire
import Foundation
import Logging
import Metrics
import Synchronization

/// A node's reader of the namespace's durable events: its own durable pull
/// consumer on `<ns>.dur.>` (NATS 2.9 filters a consumer on one subject),
/// fetched by one thread of its own, delivered in order to the local
/// subscribers by one task. Each event is acknowledged to JetStream only
/// once every local subscriber has settled it (docs/bus.md, "Durable
/// delivery"); one not acknowledged within `nats.ackWaitMs` is handed over
/// again, and the bus recognises it by id.
///
/// Events this node published itself, and events on topics nobody here
/// wants, are acknowledged at once.
final class DurableConsumer: Sendable {
    private let subscription: NATSPullSubscription
    private let continuation: AsyncStream<NATSMessage>.Continuation
    private let stream: AsyncStream<NATSMessage>
    private let stopping = Atomic<Bool>(false)
    private let tasks = Mutex<(fetcher: Task<Void, Never>?, delivery: Task<Void, Never>?)>((nil, nil))
    private let bus: MessageBus
    private let nodeName: String
    private let consumerName: String
    private let logger: Logger
    /// Events this node's consumer has still to settle (`farelens_nats_durable_lag{node}`).
    private let lag: Gauge
    /// Events JetStream handed this node again (`farelens_nats_durable_redelivered_total{node}`):
    /// an acknowledgement not made within `nats.ackWaitMs`, or a first delivery lost with a server that
    /// died. Such an event arrives after those that followed it (docs/bus.md, "Over NATS").
    private let redelivered: Counter
    /// How often the lag is asked of the server.
    private let lagInterval: Duration
    private let connection: NATSConnection
    private let streamName: String

    init(transport: NATSTransport) throws(NATSError) {
        let subjects = transport.subjects
        consumerName = subjects.consumer(of: transport.identity.nodeName)
        let (subscription, earlier) = try transport.connection.pullSubscription(
            stream: subjects.stream, subject: subjects.durableEvents, durable: consumerName,
            ackWait: transport.settings.ackWait, maxAckPending: transport.settings.maxAckPending)
        self.subscription = subscription
        connection = transport.connection
        streamName = subjects.stream
        let node = transport.identity.nodeName
        lag = Gauge(label: "farelens_nats_durable_lag", dimensions: [("node", node)], factory: transport.metricsFactory)
        redelivered = Counter(label: "farelens_nats_durable_redelivered_total", dimensions: [("node", node)], factory: transport.metricsFactory)
        lagInterval = transport.settings.heartbeat
        if let earlier {
            lag.record(earlier.lag)
            Self.reportExpired(since: earlier, transport: transport)
        }
        // Unbounded here, bounded by JetStream: it hands out at most `maxAckPending` unacknowledged events.
        (stream, continuation) = AsyncStream.makeStream(of: NATSMessage.self)
        bus = transport.bus
        nodeName = transport.identity.nodeName
        logger = transport.logger
    }

    /// A node that comes back after more than `nats.retentionHours` finds
    /// some of its events removed by the stream's age limit: said once, as
    /// a warning with the count, and counted
    /// (`farelens_nats_durable_expired_total{node}`), never silently.
    private static func reportExpired(since earlier: ConsumerPosition, transport: NATSTransport) {
        let logger = transport.logger, node = transport.identity.nodeName
        let firstKept: UInt64
        do {
            firstKept = try transport.connection.firstSequence(ofStream: transport.subjects.stream)
        } catch {
            logger.warning("cannot tell whether durable events expired while this node was away", metadata: ["reason": "\(error)"])
            return
        }
        let expired = earlier.expired(firstKept: firstKept)
        guard expired > 0 else {
            if earlier.lag > 0 { logger.info("durable events waited for this node while it was away", metadata: ["node": "\(node)", "waiting": "\(earlier.lag)"]) }
            return
        }
        Counter(label: "farelens_nats_durable_expired_total", dimensions: [("node", node)], factory: transport.metricsFactory).increment(by: Int64(expired))
        logger.warning(
            "durable events expired before this node read them: it was away longer than nats.retentionHours; their effects here are missing",
            metadata: ["node": "\(node)", "expired": "up to \(expired)", "key": "nats.retentionHours", "retention": "\(transport.settings.retention)"])
    }

    /// Starts fetching and delivering.
    func start() {
        let fetcher = Task.detached { [self] in await fetchUntilStopped() }
        let delivery = Task { [self] in await deliverInOrder() }
        tasks.withLock { $0 = (fetcher, delivery) }
    }

    /// Stops fetching; events fetched and not yet settled are not
    /// acknowledged, so JetStream hands them to this node again later.
    func stop() async {
        stopping.store(true, ordering: .relaxed)
        let (fetcher, delivery) = tasks.withLock { $0 }
        await fetcher?.value
        continuation.finish()
        delivery?.cancel()
        await delivery?.value
    }

    /// Fetches in batches until stopped. `natsSubscription_Fetch` blocks, so
    /// this runs on a thread of its own, not the concurrency pool's.
    private func fetchUntilStopped() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let thread = Thread { [self] in
                var failures = 0
                var lagAskedAt = ContinuousClock.now
                while !stopping.load(ordering: .relaxed) {
                    if ContinuousClock.now - lagAskedAt >= lagInterval {
                        lagAskedAt = ContinuousClock.now
                        if let position = connection.position(of: consumerName, in: streamName) { lag.record(position.lag) }
                    }
                    switch subscription.fetch(batch: 256, milliseconds: 250) {
                    case .success(let messages):
                        failures = 0
                        for message in messages { continuation.yield(message) }
                    case .failure(let error):
                        failures += 1
                        if failures == 1 || failures.isMultiple(of: 100) {
                            logger.warning("cannot fetch durable events from JetStream; retrying", metadata: ["consumer": "\(consumerName)", "reason": "\(error)", "attempts": "\(failures)"])
                        }
                        Thread.sleep(forTimeInterval: 0.25)  // safe: pause between failed fetches on this dedicated thread (the server is away)
                    }
                }
                done.resume()
            }
            thread.name = "nats-durable-\(consumerName)"
            thread.start()
        }
    }

    private func deliverInOrder() async {
        for await message in stream {
            guard !Task.isCancelled else { return }
            if message.deliveryCount > 1 { redelivered.increment() }
            if message.header(Header.node) == nodeName {
                // Published here: the local subscribers had it at publish time.
                message.acknowledge()
                continue
            }
            guard let envelope = try? WireEnvelope(serializedBytes: message.payload) else {
                logger.warning("durable event from JetStream not delivered: does not decode", metadata: ["subject": "\(message.subject)"])
                message.acknowledge()
                continue
            }
            // Acknowledged once every local subscriber settled it; `deliver`
            // settles at once an event nobody here subscribes to.
            await bus.deliver(envelope, logger: logger) { message.acknowledge() }
        }
    }
}
#endif
