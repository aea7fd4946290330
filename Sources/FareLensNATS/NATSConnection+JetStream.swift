#if NATS
import CNats
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The durable events' side of the connection: the stream, asynchronous
/// publishes, and each node's durable pull consumer.
extension NATSConnection {
    /// What ``ensureStream(_:subject:maxAge:replicas:)`` found.
    enum StreamOutcome: Equatable {
        /// Made, or already as asked, or updated to it.
        case asAsked
        /// The stream keeps `subject` but with other settings, and this
        /// connection's user may not update them (only an admin user may):
        /// used as it is. `reason` is the server's refusal.
        case keptAsIs(reason: String)
    }

    /// Makes sure stream `name` exists and keeps the messages on `subject`
    /// until every consumer has them, at most `maxAge`. An existing stream
    /// with other settings is updated; when the server refuses the update
    /// (a user without the right: JetStream's stream update is an admin's,
    /// ops/nats/permissions.conf), a stream that still keeps `subject` is
    /// used as it is, and one that does not is an error.
    func ensureStream(_ name: String, subject: String, maxAge: Duration, replicas: Int) throws(NATSError) -> StreamOutcome {
        var config = jsStreamConfig()
        jsStreamConfig_Init(&config)
        let nameC = strdup(name), subjectC = strdup(subject)
        defer { free(nameC); free(subjectC) }
        var subjects: [UnsafePointer<CChar>?] = [UnsafePointer(subjectC)]
        var code = jsErrCode(0)
        var refusedUpdate: String?
        let status = subjects.withUnsafeMutableBufferPointer { list -> natsStatus in
            config.Name = UnsafePointer(nameC)
            config.Subjects = list.baseAddress
            config.SubjectsLen = 1
            config.Retention = js_InterestPolicy
            config.Storage = js_FileStorage
            config.MaxAge = maxAge.totalNanoseconds
            config.Replicas = Int64(replicas)
            // The publisher's event id dedupes a publish retried within two minutes.
            // (No longer than the age limit: the server refuses a longer window.)
            config.Duplicates = min(120 * 1_000_000_000, maxAge.totalNanoseconds)
            var info: UnsafeMutablePointer<jsStreamInfo>?
            var status = js_AddStream(&info, jetStreamContext, &config, nil, &code)
            if status != NATS_OK, code == JSStreamNameExistErr {
                code = jsErrCode(0)
                // A refused update is not answered: the server drops the request, so wait 2 s, not the API's 5.
                var options = jsOptions()
                jsOptions_Init(&options)
                options.Wait = 2000
                status = js_UpdateStream(&info, jetStreamContext, &config, &options, &code)
                if status != NATS_OK {
                    refusedUpdate = "\(Self.lastError(status)), code \(code.rawValue)"
                    status = keeps(name, subject: subject) ? NATS_OK : status
                }
            }
            if let info { jsStreamInfo_Destroy(info) }
            return status
        }
        guard status == NATS_OK else {
            if let refusedUpdate {
                throw .jetStream("the stream '\(name)' exists with other settings and does not keep '\(subject)'; this user may not update it", reason: refusedUpdate)
            }
            throw .jetStream("cannot create the stream '\(name)'", reason: "\(Self.lastError(status)), code \(code.rawValue)")
        }
        return refusedUpdate.map { .keptAsIs(reason: $0) } ?? .asAsked
    }

    /// Whether stream `name` exists and its subjects include `subject`.
    private func keeps(_ name: String, subject: String) -> Bool {
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(0)
        guard js_GetStreamInfo(&info, jetStreamContext, name, nil, &code) == NATS_OK, let info else { return false }
        defer { jsStreamInfo_Destroy(info) }
        guard let config = info.pointee.Config, let list = config.pointee.Subjects else { return false }
        return (0 ..< Int(config.pointee.SubjectsLen)).contains { index in list[index].map { String(cString: $0) } == subject }
    }

    /// Publishes a durable event without waiting: `waiter` is answered
    /// once the stream has stored it (nil) or refused it, or no
    /// acknowledgement came within 2–3 s (the error; ``PendingPublishes``).
    /// `messageID` (`Nats-Msg-Id`) lets the server drop a repeat of the
    /// same publish.
    func publishDurable(_ subject: String, messageID: String, headers: [(String, String)], payload: [UInt8], waiter: PendingPublishes.Waiter) {
        let message: OpaquePointer
        do {
            message = try Self.message(subject, reply: nil, headers: headers, payload: payload)
        } catch {
            waiter.acknowledgements.complete(waiter.slot, with: error)
            return
        }
        natsMsgHeader_Set(message, "Nats-Msg-Id", messageID)
        let pending = publishes
        pending.register(message, waiter)
        var owned: OpaquePointer? = message
        // Takes the message on success (`owned` becomes nil); the acknowledgement handler destroys it.
        let status = pending.gate.publishing { js_PublishMsgAsync(jetStreamContext, &owned, nil) }
        guard let owned else { return }
        // Not taken: answered here, before the message (and its address) is freed.
        if status == NATS_MAX_PAYLOAD {
            pending.complete(owned, with: .tooLarge(subject, bytes: payload.count, maximum: maxPayload))
        } else {
            pending.complete(owned, with: .publish(subject, reason: Self.lastError(status)))
        }
        natsMsg_Destroy(owned)
    }

    /// Whether libnats holds no durable publish awaiting its
    /// acknowledgement, waiting up to `milliseconds` for that (tests).
    func allAnswered(waitingAtMost milliseconds: Int64) -> Bool {
        var options = jsPubOptions()
        jsPubOptions_Init(&options)
        options.MaxWait = milliseconds
        return js_PublishAsyncComplete(jetStreamContext, &options) == NATS_OK
    }

    /// Makes sure the durable pull consumer `durable` of `stream` exists,
    /// reading `subject` with explicit acknowledgements, and binds to it.
    /// The consumer outlives this subscription: a restarted node binds to
    /// it again and gets what it had not acknowledged.
    ///
    /// - Returns: the subscription, and where the consumer stood when it
    ///   already existed (nil for a new one).
    func pullSubscription(
        stream: String, subject: String, durable: String, ackWait: Duration, maxAckPending: Int
    ) throws(NATSError) -> (subscription: NATSPullSubscription, earlier: ConsumerPosition?) {
        var config = jsConsumerConfig()
        jsConsumerConfig_Init(&config)
        var code = jsErrCode(0)
        // Where it stood, if it exists (creating an existing consumer with
        // the same configuration succeeds, so this is asked first).
        let earlier = position(of: durable, in: stream)
        let created = durable.withCString { name in
            subject.withCString { filter -> natsStatus in
                config.Durable = name
                config.FilterSubject = filter
                config.AckPolicy = js_AckExplicit
                config.AckWait = ackWait.totalNanoseconds
                config.MaxAckPending = Int64(maxAckPending)
                config.MaxDeliver = -1
                var info: UnsafeMutablePointer<jsConsumerInfo>?
                var status = js_AddConsumer(&info, jetStreamContext, stream, &config, nil, &code)
                if status != NATS_OK, code == JSConsumerNameExistErr {
                    code = jsErrCode(0)
                    status = js_UpdateConsumer(&info, jetStreamContext, stream, &config, nil, &code)
                }
                if let info { jsConsumerInfo_Destroy(info) }
                return status
            }
        }
        guard created == NATS_OK else {
            throw .jetStream("cannot create the durable consumer '\(durable)'", reason: "\(Self.lastError(created)), code \(code.rawValue)")
        }
        var options = jsSubOptions()
        jsSubOptions_Init(&options)
        var subscription: OpaquePointer?
        let status = stream.withCString { streamName in
            durable.withCString { consumer -> natsStatus in
                // Bound, not created by the client: unsubscribing then leaves the consumer in place.
                options.Stream = streamName
                options.Consumer = consumer
                return js_PullSubscribe(&subscription, jetStreamContext, subject, durable, nil, &options, &code)
            }
        }
        guard status == NATS_OK, let subscription else {
            throw .jetStream("cannot bind the durable consumer '\(durable)'", reason: "\(Self.lastError(status)), code \(code.rawValue)")
        }
        return (NATSPullSubscription(pointer: subscription, connection: self), earlier)
    }

    /// Where durable consumer `durable` of `stream` stands (a request to
    /// the server; blocks); nil when it does not exist or cannot be read.
    func position(of durable: String, in stream: String) -> ConsumerPosition? {
        var info: UnsafeMutablePointer<jsConsumerInfo>?
        var code = jsErrCode(0)
        guard js_GetConsumerInfo(&info, jetStreamContext, stream, durable, nil, &code) == NATS_OK, let info else { return nil }
        defer { jsConsumerInfo_Destroy(info) }
        return ConsumerPosition(info.pointee)
    }

    /// The sequence of the oldest message stream `name` still keeps (the
    /// next one to be stored when it is empty).
    func firstSequence(ofStream name: String) throws(NATSError) -> UInt64 {
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(0)
        let status = js_GetStreamInfo(&info, jetStreamContext, name, nil, &code)
        defer { if let info { jsStreamInfo_Destroy(info) } }
        guard status == NATS_OK, let info else { throw .jetStream("cannot read the stream '\(name)'", reason: "\(Self.lastError(status)), code \(code.rawValue)") }
        return info.pointee.State.FirstSeq
    }
}

extension ConsumerPosition {
    /// The position a consumer's information reports.
    init(_ info: jsConsumerInfo) {
        self.init(acknowledgedThrough: info.AckFloor.Stream, undelivered: info.NumPending, unacknowledged: info.NumAckPending)
    }
}

extension Duration {
    /// The duration in whole nanoseconds (what libnats takes).
    var totalNanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}

/// A JetStream pull consumer's subscription.
// @unchecked Sendable: the pointer and the connection are set once (`let`);
// libnats synchronises calls on the pointer (one thread fetches,
// `unsubscribe` may come from another).
final class NATSPullSubscription: @unchecked Sendable {
    private let pointer: OpaquePointer
    /// Kept until this subscription goes, which hands it the pointer to free once it is closed.
    private let connection: NATSConnection
    init(pointer: OpaquePointer, connection: NATSConnection) {
        self.pointer = pointer
        self.connection = connection
    }
    deinit { connection.retire(pointer, unsubscribing: false) }

    /// Up to `batch` messages, waiting at most `milliseconds` for the
    /// first; empty when none came. Blocks the calling thread.
    ///
    /// Messages left over from an earlier request (one that expired while
    /// they were on their way) are taken first, one fetch of one each (no
    /// request leaves the client for a message already here). libnats
    /// 3.4's fetch writes past its array when it starts with more than
    /// half a batch of messages already here (nats-io/nats.c#749, fixed in
    /// nats.c 3.9; Debian 12 ships 3.4.1). After the leftovers, only what
    /// its read loop queues in the microseconds before the fetch looks is
    /// already there: a message or two, never half of 256.
    func fetch(batch: Int, milliseconds: Int64) -> Result<[NATSMessage], NATSError> {
        var leftovers: [NATSMessage] = []
        while leftovers.count < batch, waiting > 0 {
            // A fetch of one takes one already here, or (if only the server's statuses were) asks for one, for a millisecond.
            guard case .success(let one) = request(batch: 1, milliseconds: 1), !one.isEmpty else { break }
            leftovers += one
        }
        if !leftovers.isEmpty { return .success(leftovers) }
        return request(batch: batch, milliseconds: milliseconds)
    }

    /// Messages this client holds for the subscription, not yet fetched.
    var waiting: Int {
        var count: Int32 = 0
        guard natsSubscription_GetPending(pointer, &count, nil) == NATS_OK else { return 0 }
        return Int(count)
    }

    /// One fetch: up to `batch` messages, waiting at most `milliseconds`;
    /// empty when none came.
    private func request(batch: Int, milliseconds: Int64) -> Result<[NATSMessage], NATSError> {
        var list = natsMsgList()
        var code = jsErrCode(0)
        let status = natsSubscription_Fetch(&list, pointer, Int32(batch), milliseconds, &code)
        defer { natsMsgList_Destroy(&list) }
        if status == NATS_TIMEOUT { return .success([]) }
        guard status == NATS_OK else { return .failure(.jetStream("fetch failed", reason: "\(NATSConnection.lastError(status)), code \(code.rawValue)")) }
        var messages: [NATSMessage] = []
        for index in 0..<Int(list.Count) {
            guard let message = list.Msgs[index] else { continue }
            messages.append(NATSMessage(taking: message, from: self))
            // Owned by the wrapper now: the list's destroy must skip it.
            list.Msgs[index] = nil
        }
        return .success(messages)
    }

    /// Stops fetching.
    func unsubscribe() { _ = natsSubscription_Unsubscribe(pointer) }
}
#endif
