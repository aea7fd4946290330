public import FareLensBus
import FareLensMessages
public import FareLensStore
import Foundation
public import GRDB
public import Logging
import DequeModule
import Metrics

/// A service's event outbox: the events a service publishes are written
/// into its own database in the same transaction as the change they report
/// (``append(_:parent:in:)``), and ``run()`` publishes them in commit order
/// once the transaction has committed, removing each row once this node is
/// done with its event.
///
/// What it guarantees (docs/bus.md, "A service's event outbox"):
/// - an event is published if and only if its transaction committed: a
///   crash (even `kill -9`) after the commit publishes it when the service
///   starts again; a rollback never publishes it;
/// - every copy of an event carries the same id, `<owner>.outbox#<instance>`
///   and the row's sequence, across restarts, so consumers' inboxes apply it
///   once however often it is published;
/// - events are published in the order their rows were written (FIFO for
///   the whole service);
/// - a durable event's row is removed only once this node is done with it:
///   every local subscriber has consumed it and the bridge has journaled
///   it, so a crash while an in-process consumer still holds it publishes
///   it again (a non-durable event's row once the bus has taken it);
/// - nothing is dropped: a publish the bus refuses (`overloaded` at an away
///   node's backlog cap) is retried with backoff, and the event waits on disk
///   meanwhile. A handler never waits on event backpressure: it only writes
///   a row.
///
/// It replaces `DeferredPublisher` in a service whose events must not be
/// lost between its commit and their publish.
///
/// The events wait in an ``EventOutboxStore``: the `event_outbox` table
/// (``init(owner:database:bus:types:clock:batchSize:retryDelays:transport:logger:)``),
/// or a service's own table whose rows are its events
/// (``init(owner:store:bus:batchSize:forgetEvery:retryDelays:transport:logger:)``),
/// whose transactions hand the relay what they wrote
/// (``committed(first:count:in:event:)``) so that it reads the table back
/// only after a restart or when it has fallen far behind.
public final class EventOutbox: Sendable {
    /// The publishing service (the publisher name's prefix and a metrics dimension).
    public let owner: String
    /// The most events read and published in one round.
    public let batchSize: Int
    private let store: any EventOutboxStore
    /// The `event_outbox` table, which ``append(_:parent:in:)`` writes; nil for a service's own table.
    private let table: EventOutboxTable?
    private let bus: MessageBus
    private let logger: Logger
    private let retryDelays: (first: Duration, most: Duration)
    /// What the backoffs wait on: real time in production, a test's clock in tests (which then retry only when the test moves it).
    private let transport: TransportClock
    private let wakeUps: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    private let published: Counter
    private let retried: Counter
    private let undecodable: Counter
    private let waiting: Gauge
    private let settled: SettledSequences
    /// Set when a transaction with events commits; the relay reads the table again only then (or when its last read was full).
    private let committedFlag = CommitFlag()
    /// What ``committed(first:count:in:event:)`` hands over; nil for the `event_outbox` table, which the relay always reads.
    private let memory: CommittedEventQueue?
    /// The fewest settled events forgotten at once while others are still unsettled.
    let forgetEvery: Int

    /// An outbox for `owner`'s events of `types` (the only types
    /// ``append(_:parent:in:)`` takes) in `database`, whose migrations must
    /// include ``FareLensStore/ServiceMigrations/registerEventOutbox(named:)``.
    public convenience init(
        owner: String, database: ServiceDatabase, bus: MessageBus, types: [any BusEvent.Type], clock: any WallClock,
        batchSize: Int = 256, retryDelays: (first: Duration, most: Duration) = (.milliseconds(50), .seconds(5)), transport: TransportClock = .system,
        logger: Logger
    ) {
        let table = EventOutboxTable(
            owner: owner, database: database, types: Dictionary(types.map { type in (type.wireTypeName, type) }, uniquingKeysWith: { first, _ in first }),
            clock: clock)
        self.init(
            owner: owner, store: table, table: table, memory: nil, bus: bus, batchSize: batchSize, forgetEvery: min(64, batchSize), retryDelays: retryDelays,
            transport: transport, logger: logger)
    }

    /// An outbox for `owner`'s events kept in `store`, a table of the
    /// service's own, whose transactions hand over what they write with
    /// ``committed(first:count:in:event:)``. Settled events are forgotten
    /// (``EventOutboxStore/forget(through:)``) at least `forgetEvery` at a
    /// time while others are unsettled, and all at once when none is.
    /// ``append(_:parent:in:)`` is not for this outbox.
    public convenience init(
        owner: String, store: any EventOutboxStore, bus: MessageBus, batchSize: Int = 1_024, forgetEvery: Int = 1_024,
        retryDelays: (first: Duration, most: Duration) = (.milliseconds(50), .seconds(5)), transport: TransportClock = .system, logger: Logger
    ) {
        self.init(
            owner: owner, store: store, table: nil, memory: CommittedEventQueue(limit: max(1, batchSize) * 64), bus: bus,
            batchSize: batchSize, forgetEvery: forgetEvery, retryDelays: retryDelays, transport: transport, logger: logger)
    }

    private init(
        owner: String, store: any EventOutboxStore, table: EventOutboxTable?, memory: CommittedEventQueue?, bus: MessageBus, batchSize: Int, forgetEvery: Int, retryDelays: (first: Duration, most: Duration),
        transport: TransportClock, logger: Logger
    ) {
        self.transport = transport
        self.owner = owner
        self.batchSize = max(1, batchSize)
        self.store = store
        self.table = table
        self.bus = bus
        self.logger = logger
        self.memory = memory
        self.forgetEvery = max(1, forgetEvery)
        self.retryDelays = retryDelays
        (wakeUps, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        settled = SettledSequences(wake: wake)
        let factory = bus.configuration.metricsFactory
        published = Counter(label: "farelens_event_outbox_published_total", dimensions: [("owner", owner)], factory: factory)
        retried = Counter(label: "farelens_event_outbox_retries_total", dimensions: [("owner", owner)], factory: factory)
        undecodable = Counter(label: "farelens_event_outbox_undecodable_total", dimensions: [("owner", owner)], factory: factory)
        waiting = Gauge(label: "farelens_event_outbox_waiting", dimensions: [("owner", owner)], factory: factory)
    }

    /// Writes `event` into the outbox inside the caller's write transaction
    /// `db`: it is published once that transaction commits, and never if it
    /// rolls back. Never waits on the bus.
    ///
    /// - Parameter parent: the request being handled, if any, whose trace id the event carries.
    /// - Throws: ``EventOutboxError`` `unregistered-type` for a type not
    ///   given at init (``run()`` could not decode it); the encoder's or
    ///   SQLite's error otherwise. Either way the caller's transaction
    ///   should roll back.
    public func append<E: BusEvent>(_ event: E, parent: RequestContext? = nil, in db: Database) throws {
        guard let table else { throw EventOutboxError.unregisteredType(E.wireTypeName, owner: owner) }
        try table.insert(event, traceID: parent?.traceID ?? TraceID.random(), in: db)
        let wake = self.wake
        let committed = self.committedFlag
        db.afterNextTransaction(onCommit: { _ in
            committed.raise()
            wake.yield()
        })
    }

    /// Hands over the `count` events that the write transaction `db` records
    /// in this outbox's store, sequences `first ..< first + count`:
    /// `event(i)` makes the one of sequence `first + i`, when it is
    /// published. Once `db` commits the relay publishes them from memory,
    /// in commit order; a rollback hands over nothing. Only for an outbox
    /// made with ``init(owner:store:bus:batchSize:forgetEvery:retryDelays:transport:logger:)``.
    public func committed(first: Int64, count: Int, in db: Database, event: @escaping @Sendable (Int) -> OutboxEvent) {
        guard count > 0, let memory else { return }
        let wake = self.wake
        let committed = self.committedFlag
        db.afterNextTransaction(onCommit: { _ in
            memory.append(first: first, count: count, event: event)
            committed.raise()
            wake.yield()
        })
    }

    /// Publishes waiting events, those an earlier run left first, and then
    /// each transaction's as it commits, until the calling task is
    /// cancelled; then publishes what waits once more (no retry) and
    /// returns. What is still waiting is published by the next run. Run it
    /// once, from the service's `run()`.
    ///
    /// It does not wait for one round's events to be consumed before it
    /// publishes the next: rows are removed as their events settle, in
    /// order, and at most ``maximumUnsettled`` published events wait to
    /// settle at a time.
    public func run() async {
        guard let (publisher, settledThrough) = await publisherName() else { return }
        var relay = Relay(lastPublished: settledThrough)
        wake.yield()
        var delay = retryDelays.first
        rounds: for await _ in wakeUps {
            while true {
                switch await round(&relay, as: publisher) {
                case .idle:
                    delay = retryDelays.first
                    continue rounds
                case .more:
                    delay = retryDelays.first
                case .refused:
                    do { try await transport.sleep(for: delay) } catch { break rounds }  // safe: backoff before retrying a refused publish; ends on cancellation
                    delay = min(delay * 2, retryDelays.most)
                }
            }
        }
        while case .more = await round(&relay, as: publisher) {}
    }

    /// The most published events waiting to settle before the relay stops
    /// reading more: four rounds' worth.
    public var maximumUnsettled: Int { batchSize * 4 }

    /// The outbox's publisher name and where the last run left off, read
    /// once from the store (retried with backoff if the read fails); nil
    /// when cancelled first.
    private func publisherName() async -> (String, Int64)? {
        var delay = retryDelays.first
        while !Task.isCancelled {
            do throws(StoreError) {
                return ("\(owner).outbox#\(try await store.instance())", try await store.settledThrough())
            } catch {
                storeFailed("event outbox cannot read its identity; retrying", error)
            }
            do { try await transport.sleep(for: delay) } catch { return nil }  // safe: backoff before reading again; ends on cancellation
            delay = min(delay * 2, retryDelays.most)
        }
        return nil
    }

    /// What the relay knows between rounds, in this life.
    private struct Relay {
        /// The highest sequence published in this life, or where the last
        /// run left off (0 for the `event_outbox` table: its first round
        /// starts from the oldest row).
        var lastPublished: Int64
        /// Published events whose rows are not yet removed, in sequence order.
        var unsettled = Deque<Int64>()
        /// The last read found every waiting row: nothing to read until a commit.
        var caughtUp = false
        /// The generation of ``memory`` that holds every event committed
        /// since the last read of the store; nil while the store is read.
        var memoryGeneration: Int?
    }

    /// What one round left.
    private enum Round {
        /// Caught up, or at ``maximumUnsettled``: the next commit or settlement wakes the relay.
        case idle
        /// A full round went out; more may wait.
        case more
        /// The bus refused an event, or the outbox could not be read or
        /// cleared: retry after a delay.
        case refused
    }

    /// Removes the rows of the events settled so far (in order, up to the
    /// first that is not), then publishes the next waiting rows, at most
    /// ``batchSize`` and no more than ``maximumUnsettled`` allows.
    private func round(_ relay: inout Relay, as publisher: String) async -> Round {
        guard await removeSettled(&relay) else { return .refused }
        let room = min(batchSize, maximumUnsettled - relay.unsettled.count)
        guard room > 0 else { return .idle }
        // A wake-up for a settlement alone reads nothing: no row was committed since the last read found them all.
        let fresh = committedFlag.take()
        guard fresh || !relay.caughtUp else {
            waiting.record(relay.unsettled.count)
            return .idle
        }
        let rows: [OutboxEvent]
        if let memory, let generation = relay.memoryGeneration, let held = memory.take(after: relay.lastPublished, limit: room, generation: generation) {
            rows = held
        } else {
            relay.memoryGeneration = nil
            let generation = memory?.generation
            do throws(StoreError) {
                rows = try await store.events(after: relay.lastPublished, limit: room)
            } catch {
                storeFailed("event outbox cannot be read; retrying", error)
                relay.caughtUp = false
                return .refused
            }
            // Caught up: whatever commits from now on is in memory, unless it overflows meanwhile.
            if rows.count < room { relay.memoryGeneration = generation }
        }
        relay.caughtUp = rows.count < room
        // The round's events go out as one batch: over NATS all in flight
        // together, one wait for JetStream's acknowledgements.
        var batch: [MessageBus.KeptIDEvent] = []
        batch.reserveCapacity(rows.count)
        var made: [(any BusEvent)?] = []
        made.reserveCapacity(rows.count)
        let settled = self.settled
        for row in rows {
            let event = make(row)
            made.append(event)
            guard let event else { continue }
            let sequence = row.sequence
            // Only a durable topic's events are waited for: the others are at most once anyway.
            let durable = type(of: event).topic.isDurable
            batch.append(MessageBus.KeptIDEvent(
                event: event, id: EventID(publisher: publisher, sequence: UInt64(bitPattern: sequence)), traceID: row.traceID,
                onSettled: { if durable { settled.settle(sequence) } }))
        }
        let outcome = batch.isEmpty ? BatchOutcome(count: 0, refusal: nil) : await bus.publish(batch: batch)
        let refusal = outcome.refusal
        // Counted once a round: a counter's increment per event was a cost of every decision the alerts service announces.
        var publishedCount = 0
        for (row, event) in zip(rows, made) {
            let sequence = row.sequence
            if let event {
                // The refused event and those after it wait for the next round.
                guard publishedCount < outcome.count else { break }
                if !type(of: event).topic.isDurable { settled.settle(sequence) }
                publishedCount += 1
            } else {
                settled.settle(sequence)
            }
            relay.lastPublished = sequence
            relay.unsettled.append(sequence)
        }
        if publishedCount > 0 { published.increment(by: Int64(publishedCount)) }
        guard await removeSettled(&relay) else { return .refused }
        if let refusal {
            relay.caughtUp = false
            // The refused event and those after it were taken from memory: read them from the store.
            relay.memoryGeneration = nil
            retried.increment()
            logger.warning("event not yet published; retrying", metadata: ["owner": "\(owner)", "reason": "\(refusal)"])
            return .refused
        }
        guard relay.caughtUp else { return .more }
        waiting.record(relay.unsettled.count)
        return .idle
    }

    /// Forgets the longest settled prefix of `relay.unsettled` (the
    /// `event_outbox` table deletes its rows), once it holds them all or at
    /// least ``forgetEvery`` (one write for many settlements).
    ///
    /// - Returns: false when they could not be removed (the relay retries).
    private func removeSettled(_ relay: inout Relay) async -> Bool {
        let settledCount = settled.settledPrefixCount(of: relay.unsettled)
        guard settledCount > 0, settledCount == relay.unsettled.count || settledCount >= forgetEvery else { return true }
        let last = relay.unsettled[settledCount - 1]
        do throws(StoreError) {
            try await store.forget(through: last)
        } catch {
            storeFailed("event outbox cannot remove published events; retrying", error)
            return false
        }
        settled.forget(relay.unsettled.prefix(settledCount))
        relay.unsettled.removeFirst(settledCount)
        return true
    }

    /// Logs a failed read or write of the store: an error, unless the relay
    /// is stopping. Then the database refuses a cancelled task's work
    /// (GRDB's `CancellationError`), and what was left is done by the next
    /// run (published again under the same ids, or forgotten then): a
    /// graceful stop is not a failure.
    private func storeFailed(_ message: Logger.Message, _ error: StoreError) {
        if Task.isCancelled {
            logger.debug("\(message) (stopping: left for the next run)", metadata: ["owner": "\(owner)", "error": "\(error)"])
        } else {
            logger.error(message, metadata: ["owner": "\(owner)", "error": "\(error)"])
        }
    }

    /// The row's event; nil (logged and counted) when it cannot be made,
    /// which only a row written by another build could cause.
    private func make(_ row: OutboxEvent) -> (any BusEvent)? {
        do {
            return try row.make()
        } catch {
            undecodable.increment()
            logger.error("event outbox row cannot be decoded; skipped", metadata: [
                "owner": "\(owner)", "sequence": "\(row.sequence)", "type": "\(row.typeName)", "error": "\(error)",
            ])
            return nil
        }
    }
}
