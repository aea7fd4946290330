import FareLensBus
import FareLensMessages
import FareLensTesting
@testable import FareLensWire
import NIOCore
import NIOPosix
import Testing

/// How the bridge runs a request: answered on the connection's event loop,
/// cancelled when the connection closes, and timed out by one deadline
/// timer per connection (docs/wire-protocol.md 5.3,
/// docs/decisions/0008-requests-answered-on-the-event-loop.md).
@Suite("The bridge's request path")
struct BridgeRequestPathTests {
    @Test("a request from another node is handled on the connection's event loop, not on the concurrency pool")
    func answeredOnTheEventLoop() async throws {
        let onLoop = Locked<[Bool]>([])
        try await withTestMesh(.split) { server, _ in
            try server.serve(EchoRequest.self) { request, _ in
                onLoop.set(onLoop.get() + [MultiThreadedEventLoopGroup.currentEventLoop != nil])
                return EchoResponse(text: request.text)
            }
        } body: { mesh in
            for index in 0 ..< 20 { _ = try await mesh.clientBus.request(EchoRequest(text: "\(index)")) }
        }
        #expect(onLoop.get() == Array(repeating: true, count: 20))
    }

    @Test("a caller that prefers the spoke's executor writes and is resumed on the connection's event loop, before and after a reconnect")
    func callerOnTheSpokesLoop() async throws {
        let path = temporarySocketPath()
        // Three loops: a spoke that connected on whatever loop the group
        // offered next would land on another loop than its executor's.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 3)
        let spokeBus = makeNodeBus("caller")
        let spoke = BridgeSpoke(bus: spokeBus, configuration: fastBridge(path), identity: testIdentity("caller"), logger: quietLogger(), eventLoopGroup: group)
        spokeBus.attach(spoke)
        let spokeTask = Task { try await spoke.run() }

        /// Sends 10 echoes from a task preferring the spoke's executor; for
        /// each, whether the caller ran on the connection's loop just before
        /// sending and just after the response resumed it.
        func callsOnTheLoop(_ label: String) async throws -> [Bool] {
            try await waitUntil("spoke joined (\(label))") { spoke.hosts(EchoRequest.address) }
            let loop = try #require(spoke.state.withLockedValue { $0.connection }?.channel.eventLoop)
            return try await withTaskExecutorPreference(spoke.executor) { () async throws -> [Bool] in
                var seen: [Bool] = []
                for index in 0 ..< 10 {
                    seen.append(loop.inEventLoop)
                    let echoed = try await spokeBus.request(EchoRequest(text: "\(label) \(index)"))
                    seen.append(loop.inEventLoop)
                    #expect(echoed.text == "\(label) \(index)")
                }
                return seen
            }
        }

        let firstHub = makeNodeBus("hub")
        try serveEcho(firstHub)
        let (_, firstHubTask) = try await startHub(firstHub, fastBridge(path))
        #expect(try await callsOnTheLoop("first") == Array(repeating: true, count: 20))
        firstHubTask.cancel()
        _ = await firstHubTask.result  // a restarted hub binds the same path: let this one finish closing
        try await waitUntil("the spoke noticed the hub is gone") { !spoke.isConnected }

        let secondHub = makeNodeBus("hub")
        try serveEcho(secondHub)
        let (_, secondHubTask) = try await startHub(secondHub, fastBridge(path))
        #expect(try await callsOnTheLoop("reconnected") == Array(repeating: true, count: 20))
        // A caller on the pool is not on the loop (what the test would see without the preference).
        _ = try await spokeBus.request(EchoRequest(text: "from the pool"))
        #expect(spoke.state.withLockedValue { $0.connection }?.channel.eventLoop.inEventLoop == false)
        for task in [spokeTask, secondHubTask] { task.cancel() }
        for task in [spokeTask, secondHubTask] { _ = await task.result }
        try await group.shutdownGracefully()
    }

    @Test("a handler still answering when its caller's node goes away is cancelled")
    func answeringCancelledOnClose() async throws {
        let path = temporarySocketPath()
        let hubBus = makeNodeBus("hub")
        let cancelled = Locked(false)
        try hubBus.serve(SlowRequest.self) { _, _ in
            // Bounded: gives up after 10 s if cancellation never comes.
            for _ in 0 ..< 1000 where !Task.isCancelled { try? await Task.sleep(for: .milliseconds(10)) }  // safe: a handler that only waits for its cancellation, bounded at 10 s
            cancelled.set(Task.isCancelled)
            return EchoResponse(text: "gone")
        }
        let (_, hubTask) = try await startHub(hubBus, fastBridge(path))
        let spokeBus = makeNodeBus("caller")
        let (_, spokeTask) = try await startSpoke(spokeBus, fastBridge(path), name: "caller")
        let caller = Task { try await spokeBus.request(SlowRequest()) }
        try await waitUntil("the hub is answering") { hubBus.inFlight(at: SlowRequest.address) == 1 }
        spokeTask.cancel()
        _ = await spokeTask.result
        try await waitUntil("the handler saw the cancellation") { cancelled.get() }
        caller.cancel()
        _ = await caller.result
        hubTask.cancel()
        _ = await hubTask.result
    }

    @Test("a peer that never answers: each request times out at its own deadline, a shorter one sent after a longer one first")
    func callerDeadlines() async throws {
        let path = temporarySocketPath()
        let hubBus = makeNodeBus("hub")
        let (hub, hubTask) = try await startHub(hubBus, fastBridge(path))
        let silent = try RawSocketClient(path: path)
        var hello = rawHello(name: "silent")
        hello.hello.services = [EchoRequest.address.name]
        try silent.send(hello)
        _ = await silent.readUntil { envelopes in envelopes.contains { $0.kind == .welcome } }
        try await waitUntil("the hub routes echo to the silent node") { hub.hosts(EchoRequest.address) }
        let longSent = ContinuousClock.now
        let long = Task { await busError { try await hubBus.request(EchoRequest(text: "long"), timeout: .seconds(5)) } }
        // The long request's timer is armed first; the short one must arm an earlier one.
        try await waitUntil("the long request is waiting") { hub.connection(hosting: EchoRequest.address, except: nil)?.inFlight == 1 }
        let short = await busError { try await hubBus.request(EchoRequest(text: "short"), timeout: .milliseconds(200)) }
        // Not a timing assertion: a short request kept until the long one's
        // timer fires would end 5 s after it was sent, not within 4.
        let shortEnded = ContinuousClock.now
        #expect(short?.kind == .timeout)
        #expect(shortEnded - longSent < .seconds(4))
        #expect(await long.value?.kind == .timeout)
        silent.close()
        hubTask.cancel()
        _ = await hubTask.result
    }
}

/// The deadline timer's bookkeeping.
@Suite("RequestDeadlines")
struct RequestDeadlinesTests {
    @Test("the timer fires for the earliest deadline, expires what is due, and is armed again for the next")
    func firesInOrder() throws {
        var deadlines = RequestDeadlines()
        let base = NIODeadline.uptimeNanoseconds(1_000_000_000)
        var waiting: Set<UInt64> = []
        func add(_ id: UInt64, _ offsetMs: Int64) -> RequestDeadlines.Arming? {
            waiting.insert(id)
            return deadlines.add(id: id, deadline: base + .milliseconds(offsetMs), waiting: waiting.count) { [] }
        }
        let first = try #require(add(1, 300))
        #expect(add(2, 500) == nil)  // later than the armed timer: nothing to arm
        let earlier = try #require(add(3, 100))  // earlier: supersedes the first timer
        #expect(earlier.deadline == base + .milliseconds(100))
        // The superseded timer does nothing when it fires.
        let stale = deadlines.fire(generation: first.generation, now: base + .milliseconds(300)) { waiting.contains($0) }
        #expect(stale.expired.isEmpty && stale.next == nil)
        let atEarlier = deadlines.fire(generation: earlier.generation, now: base + .milliseconds(100)) { waiting.contains($0) }
        #expect(atEarlier.expired == [3])
        waiting.remove(3)
        waiting.remove(1)  // answered before its deadline
        let next = try #require(atEarlier.next)
        #expect(next.deadline == base + .milliseconds(300))
        let atNext = deadlines.fire(generation: next.generation, now: base + .milliseconds(300)) { waiting.contains($0) }
        #expect(atNext.expired.isEmpty)  // 1 was answered: skipped
        #expect(atNext.next?.deadline == base + .milliseconds(500))
    }

    @Test("answered requests' entries do not pile up: the heap stays within twice the requests waiting")
    func staysBounded() {
        var deadlines = RequestDeadlines()
        let base = NIODeadline.uptimeNanoseconds(1_000_000_000)
        var waiting: [UInt64: NIODeadline] = [:]
        for id in UInt64(1) ... 100_000 {
            let deadline = base + .milliseconds(Int64(id))
            waiting[id] = deadline
            _ = deadlines.add(id: id, deadline: deadline, waiting: waiting.count) {
                waiting.map { RequestDeadlines.Entry(deadline: $0.value, id: $0.key) }
            }
            if id > 10 { waiting[id - 10] = nil }  // ten in flight at a time
            #expect(deadlines.count <= 2 * 11 + 64 + 1)
        }
    }
}
