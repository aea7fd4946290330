#if NATS
import CNats
import Synchronization

/// Durable publishes sent and not yet acknowledged by the stream, by the
/// address of their message: libnats hands the same message back to the
/// acknowledgement handler, so an answer finds its publish without reading
/// a header or hashing a string.
///
/// An acknowledgement that does not come (a server that died with the
/// message, a connection lost before it was written) is given up on after
/// 2–3 s (``tick()``, once a second): libnats gives back every publish it
/// still holds (`js_PublishAsyncGetPendingList`), and each is answered
/// with a `publish` error, so its batch publishes it again (the stream's
/// dedupe drops a copy it had stored). This replaces libnats' own timeout
/// per message (`jsPubOptions.MaxWait`), which cost every publish a timer
/// entry and, 2 s later, a second message through the reply subscription:
/// a quarter of the publishing side's CPU (docs/performance.md).
final class PendingPublishes: Sendable {
    /// Where a publish's answer goes: its slot among the publishes in
    /// flight together.
    struct Waiter: Sendable {
        let acknowledgements: GatheredAcknowledgements
        let slot: Int
    }

    /// Ticks an unanswered publish may wait: given up on at the third, 2–3 s after it was made.
    static let ticksToWait: UInt64 = 3

    private struct Entry {
        let waiter: Waiter
        let tick: UInt64
    }
    private struct State {
        var waiting: [UInt: Entry] = [:]
        var mostWaiting = 0
        var tick: UInt64 = 0
    }
    private let state = Mutex(State())
    /// Publish calls pass it together; a take-back waits for them (``tick()``).
    let gate = PublishGate()
    /// The JetStream context whose publishes these are, while it lives:
    /// read and written only inside ``gate``'s `alone`.
    // nonisolated(unsafe): every access is inside `gate.alone`, which excludes the others.
    private nonisolated(unsafe) var context: OpaquePointer?

    /// The most publishes that were waiting at once, in this connection's life.
    var mostWaiting: Int { state.withLock { $0.mostWaiting } }

    /// How many publishes wait for an answer now.
    var count: Int { state.withLock { $0.waiting.count } }

    /// The JetStream context publishes are made on: given back by ``tick()``
    /// until ``detach()``.
    func attach(_ context: OpaquePointer) {
        gate.alone { self.context = context }
    }

    /// The context is about to be destroyed: no more is asked of it.
    func detach() {
        gate.alone { context = nil }
    }

    /// `message` is about to be published: its answer goes to `waiter`.
    func register(_ message: OpaquePointer, _ waiter: Waiter) {
        state.withLock { state in
            state.waiting[message.address] = Entry(waiter: waiter, tick: state.tick)
            state.mostWaiting = max(state.mostWaiting, state.waiting.count)
        }
    }

    /// Answers `message`'s publish (nil: stored). Call it before the
    /// message is destroyed: its address may be a new message's after.
    func complete(_ message: OpaquePointer, with error: NATSError?) {
        guard let entry = state.withLock({ $0.waiting.removeValue(forKey: message.address) }) else { return }
        entry.waiter.acknowledgements.complete(entry.waiter.slot, with: error)
    }

    /// One more second: if a publish has waited ``ticksToWait`` ticks,
    /// takes back from libnats every publish it still holds and answers
    /// each with a `publish` error (those answered meanwhile are not among
    /// them). The others' acknowledgements, should they come, are dropped
    /// by libnats; their batches publish them again too.
    ///
    /// - Returns: how many publishes were given up on.
    @discardableResult
    func tick() -> Int {
        let overdue = state.withLock { state in
            state.tick += 1
            let now = state.tick
            return state.waiting.values.contains { now - $0.tick >= Self.ticksToWait }
        }
        guard overdue else { return 0 }
        // No publish call is under way while libnats hands its messages
        // back (one could still be writing a message it hands back); the
        // acknowledgement handler does not pass the gate, so a publish
        // stalled for acknowledgements still gets them.
        let given: [Entry] = gate.alone {
            guard let context else { return [] }
            var list = natsMsgList()
            guard js_PublishAsyncGetPendingList(&list, context) == NATS_OK else { return [] }
            defer { natsMsgList_Destroy(&list) }
            // Answered before the messages are freed (an address may be a new message's after).
            return state.withLock { state in
                (0 ..< Int(list.Count)).compactMap { index in
                    list.Msgs[index].flatMap { state.waiting.removeValue(forKey: $0.address) }
                }
            }
        }
        let reason = NATSError.publish("the stream", reason: "no acknowledgement within \(Self.ticksToWait - 1)–\(Self.ticksToWait) s")
        for entry in given { entry.waiter.acknowledgements.complete(entry.waiter.slot, with: reason) }
        return given.count
    }

    /// Fails every publish still waiting: the connection is closed, no
    /// acknowledgement will come.
    func failAll() {
        let all = state.withLock { state in
            defer { state.waiting = [:] }
            return state.waiting.values
        }
        let reason = NATSError.publish("the stream", reason: "the connection to NATS was closed before the stream acknowledged it")
        for entry in all { entry.waiter.acknowledgements.complete(entry.waiter.slot, with: reason) }
    }
}

extension OpaquePointer {
    /// The address, as a `Sendable` key (a C object's identity while it lives).
    var address: UInt { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(self))) }
}

/// The JetStream context's acknowledgement handler (run on libnats'
/// thread): answers the publish of `message`, then destroys it (the
/// handler owns it).
let durablePublished: jsPubAckHandler = { _, message, _, failure, closure in
    defer { natsMsg_Destroy(message) }
    guard let message, let closure else { return }
    var error: NATSError?
    if let failure {
        let text = failure.pointee.ErrText.map { String(cString: $0) } ?? ""
        error = .publish(String(cString: natsMsg_GetSubject(message)), reason: "\(NATSConnection.lastError(failure.pointee.Err)) \(text), code \(failure.pointee.ErrCode.rawValue)")
    }
    Unmanaged<PendingPublishes>.fromOpaque(closure).takeUnretainedValue().complete(message, with: error)
}
#endif
