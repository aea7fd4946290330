public import FareLensBus
import FareLensMessages
public import FareLensStore
import Foundation
public import GRDB
public import Logging
import Metrics
import Synchronization

/// A service's event outbox: the events a service publishes are written
/// into its own database in the same transaction as the change they report
/// (``append(_:parent:in:)``), and ``run()`` publishes them in commit order
/// once the transaction has committed, removing them only after the bus has
/// accepted them.
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
public final class EventOutbox: Sendable {
    /// The publishing service (the publisher name's prefix and a metrics dimension).
    public let owner: String
    /// The most events read and published in one round.
    public let batchSize: Int
    private let database: ServiceDatabase
    private let bus: MessageBus
    private let clock: any WallClock
    private let logger: Logger
    private let types: [String: any BusEvent.Type]
    private let retryDelays: (first: Duration, most: Duration)
    private let wakeUps: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    private let published: Counter
    private let retried: Counter
    private let undecodable: Counter
    private let waiting: Gauge

    /// An outbox for `owner`'s events of `types` (the only types
    /// ``append(_:parent:in:)`` takes) in `database`, whose migrations must
    /// include ``FareLensStore/ServiceMigrations/registerEventOutbox(named:)``.
    public init(
        owner: String, database: ServiceDatabase, bus: MessageBus, types: [any BusEvent.Type], clock: any WallClock,
        batchSize: Int = 256, retryDelays: (first: Duration, most: Duration) = (.milliseconds(50), .seconds(5)), logger: Logger
    ) {
        self.owner = owner
        self.batchSize = max(1, batchSize)
        self.database = database
        self.bus = bus
        self.clock = clock
        self.logger = logger
        self.types = Dictionary(types.map { type in (type.wireTypeName, type) }, uniquingKeysWith: { first, _ in first })
        self.retryDelays = retryDelays
        (wakeUps, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
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
        guard types[E.wireTypeName] != nil else { throw EventOutboxError.unregisteredType(E.wireTypeName, owner: owner) }
        let trace = parent?.traceID ?? TraceID.random()
        let record = EventOutboxRecord(
            typeName: E.wireTypeName, payload: Data(try event.wireEncoded()), traceHigh: trace.high, traceLow: trace.low,
            committedAtUnixMs: clock.now().unixMilliseconds)
        try record.insert(db)
        let wake = self.wake
        db.afterNextTransaction(onCommit: { _ in wake.yield() })
    }

    /// Publishes waiting events, those an earlier run left first, and then
    /// each transaction's as it commits, until the calling task is
    /// cancelled; then publishes what waits once more (no retry) and
    /// returns. What is still waiting is published by the next run. Run it
    /// once, from the service's `run()`.
    public func run() async {
        guard let publisher = await publisherName() else { return }
        wake.yield()
        var delay = retryDelays.first
        rounds: for await _ in wakeUps {
            while true {
                switch await publishWaiting(as: publisher) {
                case .none:
                    delay = retryDelays.first
                    continue rounds
                case .more:
                    delay = retryDelays.first
                case .refused:
                    do { try await Task.sleep(for: delay) } catch { break rounds }  // safe: backoff before retrying a refused publish; ends on cancellation
                    delay = min(delay * 2, retryDelays.most)
                }
            }
        }
        while case .more = await publishWaiting(as: publisher) {}
    }

    /// The outbox's publisher name, read once from the database (retried
    /// with backoff if the read fails); nil when cancelled first.
    private func publisherName() async -> String? {
        var delay = retryDelays.first
        while !Task.isCancelled {
            do throws(StoreError) {
                return "\(owner).outbox#\(try database.eventOutboxInstance())"
            } catch {
                logger.error("event outbox cannot read its identity; retrying", metadata: ["owner": "\(owner)", "error": "\(error)"])
            }
            do { try await Task.sleep(for: delay) } catch { return nil }  // safe: backoff before reading again; ends on cancellation
            delay = min(delay * 2, retryDelays.most)
        }
        return nil
    }

    /// What one round left.
    private enum Round {
        /// Nothing waits.
        case none
        /// A full batch went out; more may wait.
        case more
        /// The bus refused an event, or the outbox could not be read or
        /// cleared: retry after a delay.
        case refused
    }

    /// Publishes up to ``batchSize`` waiting events in order, waits until
    /// this node is done with those of durable topics the bus accepted
    /// (every local subscriber consumed them; the bridge journaled them),
    /// then removes
    /// them. Cancelled while waiting, it removes only those done so far:
    /// the rest are published again, under the same ids, by the next run.
    private func publishWaiting(as publisher: String) async -> Round {
        let rows: [EventOutboxRecord]
        do throws(StoreError) {
            rows = try database.waitingEvents(limit: batchSize)
        } catch {
            logger.error("event outbox cannot be read; retrying", metadata: ["owner": "\(owner)", "error": "\(error)"])
            return .refused
        }
        guard !rows.isEmpty else {
            waiting.record(0)
            return .none
        }
        let settled = SettledSequences()
        var accepted: [Int64] = []
        var refusal: BusError?
        for row in rows {
            guard let sequence = row.sequence else { continue }
            guard let event = decode(row) else {
                settled.settle(sequence)
                accepted.append(sequence)
                continue
            }
            // Only a durable topic's events are waited for: the others are at most once anyway.
            let durable = type(of: event).topic.isDurable
            do throws(BusError) {
                try await bus.publish(
                    event, id: EventID(publisher: publisher, sequence: UInt64(bitPattern: sequence)),
                    traceID: TraceID(high: UInt64(bitPattern: row.traceHigh), low: UInt64(bitPattern: row.traceLow)),
                    onSettled: { if durable { settled.settle(sequence) } })
            } catch {
                refusal = error
                break
            }
            if !durable { settled.settle(sequence) }
            published.increment()
            accepted.append(sequence)
        }
        await settled.wait(for: accepted)
        if let done = settled.lastOfSettledPrefix(of: accepted) {
            do throws(StoreError) { try database.removeWaitingEvents(through: done) } catch {
                logger.error("event outbox cannot remove published events; they will be published again", metadata: ["owner": "\(owner)", "error": "\(error)"])
                return .refused
            }
        }
        if let refusal {
            retried.increment()
            logger.warning("event not yet published; retrying", metadata: ["owner": "\(owner)", "reason": "\(refusal)"])
            return .refused
        }
        if let summary = try? database.waitingEventsSummary() { waiting.record(summary.count) }  // safe: the gauge only; the next round reads again
        return rows.count < batchSize ? .none : .more
    }

    /// The row's event; nil (logged and counted) when it cannot be decoded,
    /// which only a row written by another build could cause.
    private func decode(_ row: EventOutboxRecord) -> (any BusEvent)? {
        do {
            guard let type = types[row.typeName] else { throw EventOutboxError.unregisteredType(row.typeName, owner: owner) }
            return try type.init(wireEncoded: [UInt8](row.payload))
        } catch {
            undecodable.increment()
            logger.error("event outbox row cannot be decoded; skipped", metadata: [
                "owner": "\(owner)", "sequence": "\(row.sequence ?? 0)", "type": "\(row.typeName)", "error": "\(error)",
            ])
            return nil
        }
    }
}

/// The sequences of one round's events that this node is done with, and
/// the relay waiting for them.
private final class SettledSequences: Sendable {
    private struct State {
        var settled: Set<Int64> = []
        var needed: [Int64] = []
        var waiter: CheckedContinuation<Void, Never>?
        var cancelled = false
    }
    private let state = Mutex(State())

    /// This node is done with event `sequence`.
    func settle(_ sequence: Int64) {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            state.settled.insert(sequence)
            guard state.waiter != nil, state.needed.allSatisfy(state.settled.contains) else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns once every sequence of `needed` is settled, or the calling task is cancelled.
    func wait(for needed: [Int64]) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if state.cancelled || needed.allSatisfy(state.settled.contains) { return true }
                    state.needed = needed
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
                state.cancelled = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }

    /// The last sequence of the longest prefix of `sequences` that is all settled.
    func lastOfSettledPrefix(of sequences: [Int64]) -> Int64? {
        state.withLock { state in sequences.prefix { state.settled.contains($0) }.last }
    }
}

/// A failure of ``EventOutbox``, named by a stable code.
public struct EventOutboxError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: String, Hashable, Sendable {
        case unregisteredType = "unregistered-type"
    }
    private let code: Code
    /// A one-line reason.
    public let message: String

    /// Stable code, e.g. `unregistered-type`.
    public var codeName: String { code.rawValue }

    /// An event of a type the outbox was not given, so it could not decode it.
    public static func unregisteredType(_ typeName: String, owner: String) -> EventOutboxError {
        EventOutboxError(code: .unregisteredType, message: "the \(owner) event outbox was not given the event type \(typeName)")
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
