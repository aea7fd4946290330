#if NATS
import CNats
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One connection to a NATS cluster through the official C client
/// (libnats): core publish and subscribe, and the JetStream context the
/// durable events use. libnats is thread-safe; its callbacks run on its own
/// threads.
// @unchecked Sendable: the C handles are set once in `init` and freed in
// `deinit`; libnats synchronises every call on them itself. The other stored
// properties are Sendable (`publishes`, the `overdue` task, `retired` behind
// its Mutex).
final class NATSConnection: @unchecked Sendable {
    private let connection: OpaquePointer
    let jetStreamContext: OpaquePointer
    /// Durable publishes sent and not yet acknowledged by the stream.
    let publishes: PendingPublishes
    /// Gives up on publishes whose acknowledgement did not come (``PendingPublishes/tick()``, once a second).
    private let overdue: Task<Void, Never>
    /// Subscriptions let go while the connection was open: unsubscribed
    /// then, freed only once the connection is closed. libnats 3.4's read
    /// loop uses a subscription it looked up without holding it
    /// (`natsConn_processMsg`; fixed in nats.c 3.6, nats-io/nats.c#637): one
    /// freed at that moment had the message written into freed memory.
    /// Their addresses (a pointer is not `Sendable`).
    private let retired = Mutex<[UInt]>([])

    /// Connects to `settings.urls` as `name`, with user/password or a
    /// credentials file when given. Reconnects forever once connected.
    ///
    /// - Parameter writesAtOnce: each publish is written to the socket as
    ///   it is made (requests' latency); when false, libnats' flusher
    ///   thread gathers them and writes them together (many publishes
    ///   made at once, at the cost of up to a millisecond's wait).
    /// - Parameter threadPerSubscription: each subscription is delivered by
    ///   a thread of its own; when false (the default) they share the
    ///   library's few delivery threads, so a handler that holds its thread
    ///   delays every other subscription of the process.
    /// - Throws: ``NATSError`` `unreachable` (naming `nats.urls`) or
    ///   `authentication` (naming the credential key).
    init(
        settings: NATSSettings, name: String, writesAtOnce: Bool = true, threadPerSubscription: Bool = false,
        onEvent: @escaping @Sendable (ConnectionEvent) -> Void
    ) throws(NATSError) {
        var options: OpaquePointer?
        guard natsOptions_Create(&options) == NATS_OK, let options else { throw .unreachable(settings.urls, reason: "cannot allocate the client's options") }
        defer { natsOptions_Destroy(options) }
        let urls = settings.urls.map { strdup($0) }
        defer { urls.forEach { free($0) } }
        var servers = urls.map { UnsafePointer($0) }
        _ = servers.withUnsafeMutableBufferPointer { natsOptions_SetServers(options, $0.baseAddress, Int32($0.count)) }
        if let user = settings.user { natsOptions_SetUserInfo(options, user, settings.password ?? "") }
        if let file = settings.credentialsFile { natsOptions_SetUserCredentialsFromFiles(options, file, nil) }
        natsOptions_SetName(options, name)
        // A node never hears its own core publications: its local subscribers already had them.
        natsOptions_SetNoEcho(options, true)
        // Requests are latency-bound: write at once instead of waiting for the client's flusher.
        natsOptions_SetSendAsap(options, writesAtOnce)
        // Subscriptions share the library's delivery threads instead of one
        // thread each (order per subscription is kept): a node has a dozen.
        natsOptions_UseGlobalMessageDelivery(options, !threadPerSubscription)
        natsOptions_SetMaxReconnect(options, -1)
        natsOptions_SetReconnectWait(options, 250)
        natsOptions_SetTimeout(options, 2000)
        // The callbacks' closure lives until the client says the connection is
        // closed (its last callback), not until this object goes: libnats
        // calls them on its own threads, after `natsConnection_Destroy` too.
        let publishes = PendingPublishes()
        let events = Unmanaged.passRetained(ConnectionEvents(onEvent, publishes: publishes))
        natsOptions_SetDisconnectedCB(options, connectionDisconnected, events.toOpaque())
        natsOptions_SetReconnectedCB(options, connectionReconnected, events.toOpaque())
        natsOptions_SetClosedCB(options, connectionClosed, events.toOpaque())
        natsOptions_SetErrorHandler(options, connectionError, events.toOpaque())
        var connection: OpaquePointer?
        let status = natsConnection_Connect(&connection, options)
        guard status == NATS_OK, let connection else {
            events.release()
            let reason = Self.lastError(status)
            if status == NATS_CONNECTION_AUTH_FAILED || reason.lowercased().contains("authorization") {
                throw .authentication(key: settings.credentialsFile != nil ? "nats.credentialsFile" : "nats.user", reason: reason)
            }
            throw .unreachable(settings.urls, reason: reason)
        }
        // Durable publishes are asynchronous: many in flight, each completed by the stream's acknowledgement.
        var jetStreamOptions = jsOptions()
        jsOptions_Init(&jetStreamOptions)
        jetStreamOptions.PublishAsync.MaxPending = 16_384
        jetStreamOptions.PublishAsync.AckHandler = durablePublished
        // Retained for good, never released: the acknowledgement handler is
        // the JetStream context's callback, run on its reply subscription's
        // thread, and nothing in libnats orders its last call before the
        // connection's closed callback or this object's deinit (a handler
        // still running as a node goes, with a batch's acknowledgements in
        // flight, would touch a freed object). One small object per
        // connection a process makes (a node makes two in its life).
        jetStreamOptions.PublishAsync.AckHandlerClosure = Unmanaged.passRetained(publishes).toOpaque()
        var context: OpaquePointer?
        guard natsConnection_JetStream(&context, connection, &jetStreamOptions) == NATS_OK, let context else {
            natsConnection_Destroy(connection)  // its closed callback releases `events`
            throw .jetStream("cannot make a JetStream context", reason: Self.lastError(NATS_ERR))
        }
        self.connection = connection
        self.jetStreamContext = context
        self.publishes = publishes
        publishes.attach(context)
        overdue = Task.detached { [tick = settings.acknowledgementTick] in
            guard let tick else { return }
            while !Task.isCancelled {
                try? await Task.sleep(for: tick)  // safe: the clock of a network bound (an acknowledgement that never comes), not a wait for a result
                publishes.tick()
            }
        }
    }

    deinit {
        overdue.cancel()
        publishes.detach()
        // Joins the read loop: no message reaches a retired subscription after this.
        natsConnection_Close(connection)
        for address in retired.withLock({ $0 }) { natsSubscription_Destroy(OpaquePointer(bitPattern: address)) }
        jsCtx_Destroy(jetStreamContext)
        natsConnection_Destroy(connection)
    }

    /// How many subscriptions were let go and wait to be freed with the connection (tests).
    var retiredCount: Int { retired.withLock { $0.count } }

    /// Lets `subscription` go: it is freed with the connection
    /// (``retired``), and, `unsubscribing`, no message is delivered to it
    /// from now on. A JetStream subscription is not unsubscribed (libnats
    /// would delete a consumer it made itself; freed with the connection,
    /// it never is, as `natsSubscription_Destroy` never does).
    func retire(_ subscription: OpaquePointer, unsubscribing: Bool) {
        if unsubscribing { _ = natsSubscription_Unsubscribe(subscription) }
        retired.withLock { $0.append(subscription.address) }
    }

    /// What happened to the connection, for the log.
    enum ConnectionEvent: Sendable {
        case disconnected
        case reconnected(url: String)
        /// The server refused a publish or a subscription to `subject`
        /// (its permissions for this connection's user deny it).
        case notPermitted(subject: String, publish: Bool)
        /// Any other error the server or the client reported asynchronously.
        case asyncError(String)
    }

    /// The text of `status` and the client's last error, if it has one.
    static func lastError(_ status: natsStatus) -> String {
        let text = String(cString: natsStatus_GetText(status))
        guard let detail = nats_GetLastError(nil).map({ String(cString: $0) }), !detail.isEmpty, detail != text else { return text }
        return "\(text) (\(detail))"
    }

    // MARK: Core NATS

    /// Subscribes `handler` to `subject`, in `queue` group when given (one
    /// member of the group gets each message). The handler runs on one of
    /// the client's threads, one message at a time per subscription.
    func subscribe(_ subject: String, queue: String? = nil, handler: @escaping @Sendable (NATSMessage) -> Void) throws(NATSError) -> NATSSubscription {
        let box = Unmanaged.passRetained(MessageHandler(handler))
        var subscription: OpaquePointer?
        let status = if let queue {
            natsConnection_QueueSubscribe(&subscription, connection, subject, queue, deliverMessage, box.toOpaque())
        } else {
            natsConnection_Subscribe(&subscription, connection, subject, deliverMessage, box.toOpaque())
        }
        guard status == NATS_OK, let subscription else {
            box.release()
            throw .subscribe(subject, reason: Self.lastError(status))
        }
        // The handler is released once the client will call it no more.
        natsSubscription_SetOnCompleteCB(subscription, releaseHandler, box.toOpaque())
        return NATSSubscription(pointer: subscription, connection: self)
    }

    /// Publishes `payload` on `subject` with `headers`, asking for an answer
    /// on `reply` when given.
    func publish(_ subject: String, reply: String? = nil, headers: [(String, String)] = [], payload: [UInt8]) throws(NATSError) {
        let message = try Self.message(subject, reply: reply, headers: headers, payload: payload)
        defer { natsMsg_Destroy(message) }
        let status = natsConnection_PublishMsg(connection, message)
        if status == NATS_MAX_PAYLOAD { throw .tooLarge(subject, bytes: payload.count, maximum: maxPayload) }
        guard status == NATS_OK else { throw .publish(subject, reason: Self.lastError(status)) }
    }

    /// Waits until the server has processed everything published so far
    /// (subscriptions included), at most `milliseconds`.
    func flush(milliseconds: Int64 = 5000) throws(NATSError) {
        let status = natsConnection_FlushTimeout(connection, milliseconds)
        guard status == NATS_OK else { throw .publish("(flush)", reason: Self.lastError(status)) }
    }

    /// The largest message the server takes (its `max_payload`).
    var maxPayload: Int64 { natsConnection_GetMaxPayload(connection) }

    /// Closes the connection: subscriptions end, nothing more is sent.
    func close() {
        natsConnection_Close(connection)
    }

    static func message(_ subject: String, reply: String?, headers: [(String, String)], payload: [UInt8]) throws(NATSError) -> OpaquePointer {
        var message: OpaquePointer?
        let status = payload.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { natsMsg_Create(&message, subject, reply, $0.baseAddress, Int32($0.count)) }
        }
        guard status == NATS_OK, let message else { throw .publish(subject, reason: lastError(status)) }
        for (name, value) in headers { natsMsgHeader_Set(message, name, value) }
        return message
    }
}

/// A core subscription; ``unsubscribe()`` ends it.
// @unchecked Sendable: the pointer and the connection are set once (`let`);
// libnats synchronises calls on the pointer.
final class NATSSubscription: @unchecked Sendable {
    private let pointer: OpaquePointer
    /// Kept until this subscription goes, which hands it the pointer to free once it is closed.
    private let connection: NATSConnection
    init(pointer: OpaquePointer, connection: NATSConnection) {
        self.pointer = pointer
        self.connection = connection
    }
    deinit { connection.retire(pointer, unsubscribing: true) }

    /// Stops delivery (messages already handed to the handler finish).
    func unsubscribe() { _ = natsSubscription_Unsubscribe(pointer) }

    /// Removes this subscription's interest, then hands every message the
    /// server had already sent to the handler; blocks the calling thread
    /// until that is done or `milliseconds` passed (then what is left is
    /// dropped). False when the drain did not finish in time.
    func drain(milliseconds: Int64) -> Bool {
        guard natsSubscription_DrainTimeout(pointer, milliseconds) == NATS_OK else { return false }
        return natsSubscription_WaitForDrainCompletion(pointer, milliseconds) == NATS_OK
    }
}


/// A message handler kept alive for the C client.
private final class MessageHandler: Sendable {
    let handle: @Sendable (NATSMessage) -> Void
    init(_ handle: @escaping @Sendable (NATSMessage) -> Void) { self.handle = handle }
}

/// The connection's event handler, and its pending durable publishes,
/// kept alive for the C client until its closed callback.
private final class ConnectionEvents: Sendable {
    let handle: @Sendable (NATSConnection.ConnectionEvent) -> Void
    let publishes: PendingPublishes
    init(_ handle: @escaping @Sendable (NATSConnection.ConnectionEvent) -> Void, publishes: PendingPublishes) {
        self.handle = handle
        self.publishes = publishes
    }
}

private let connectionClosed: natsConnectionHandler = { _, closure in
    guard let closure else { return }
    let events = Unmanaged<ConnectionEvents>.fromOpaque(closure)
    events.takeUnretainedValue().publishes.failAll()
    events.release()
}

private let connectionError: natsErrHandler = { connection, _, status, closure in
    guard let closure else { return }
    var text: UnsafePointer<CChar>?
    _ = natsConnection_GetLastError(connection, &text)
    let detail = text.map { String(cString: $0) } ?? ""
    let events = Unmanaged<ConnectionEvents>.fromOpaque(closure).takeUnretainedValue()
    if status == NATS_NOT_PERMITTED, let violation = PermissionViolation(detail) {
        events.handle(.notPermitted(subject: violation.subject, publish: violation.isPublish))
    } else {
        events.handle(.asyncError("\(String(cString: natsStatus_GetText(status))) \(detail)"))
    }
}

private let deliverMessage: natsMsgHandler = { _, _, message, closure in
    guard let message, let closure else { return }
    Unmanaged<MessageHandler>.fromOpaque(closure).takeUnretainedValue().handle(NATSMessage(taking: message))
}

private let releaseHandler: natsOnCompleteCB = { closure in
    guard let closure else { return }
    Unmanaged<MessageHandler>.fromOpaque(closure).release()
}

private let connectionDisconnected: natsConnectionHandler = { _, closure in
    guard let closure else { return }
    Unmanaged<ConnectionEvents>.fromOpaque(closure).takeUnretainedValue().handle(.disconnected)
}

private let connectionReconnected: natsConnectionHandler = { connection, closure in
    guard let closure else { return }
    var url = [CChar](repeating: 0, count: 256)
    _ = natsConnection_GetConnectedUrl(connection, &url, url.count)
    let text = String(decoding: url.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    Unmanaged<ConnectionEvents>.fromOpaque(closure).takeUnretainedValue().handle(.reconnected(url: text))
}
#endif
