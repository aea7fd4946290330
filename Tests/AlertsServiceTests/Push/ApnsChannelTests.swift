@testable import AlertsService
import FareLensServiceKit
import FareLensTesting
import Foundation
import NIOCore
import Testing

/// The APNs channel against the local APNs stub over HTTP/2 and TLS: what
/// each push carries, and what each of APNs' answers comes to.
@Suite("APNs channel against the stub")
struct ApnsChannelTests {
    @Test("a push carries a provider token the stub verifies, every header APNs reads, and the same apns-id on every retry of one alert to one device")
    func headersAndToken() async throws {
        let kit = try await PushKit()
        let (channel, client) = try kit.channel()
        let expires = Date(timeIntervalSince1970: 1_800_000_000)
        let first = await channel.deliver(PushKit.alert("a1", token: PushKit.token(1), expiresAt: expires))
        let retry = await channel.deliver(PushKit.alert("a1", token: PushKit.token(1), expiresAt: expires, attempt: 2))
        let other = await channel.deliver(PushKit.alert("a1", token: PushKit.token(2), collapseID: ""))
        await kit.finish(client)
        #expect([first, retry, other] == [.delivered, .delivered, .delivered])
        let requests = kit.stub.requests
        try #require(requests.count == 3)
        let headers = requests[0].headers
        #expect(requests[0].token == PushKit.token(1))
        #expect(headers["apns-topic"] == PushKit.topic)
        #expect(headers["apns-push-type"] == "alert")
        #expect(headers["apns-priority"] == "10")
        #expect(headers["apns-expiration"] == "1800000000")
        #expect(headers["apns-collapse-id"] == "JFK-NRT")
        #expect(headers["content-type"] == "application/json")
        #expect(requests[0].body == Data(#"{"aps":{"alert":{"title":"t","body":"b"}}}"#.utf8))
        // Stable across retries, different per device, a UUID (the stub refuses anything else with BadMessageId).
        #expect(headers["apns-id"] == requests[1].headers["apns-id"])
        #expect(headers["apns-id"] != requests[2].headers["apns-id"])
        #expect(headers["apns-id"] == ApnsChannel.apnsID(alertID: "a1", token: PushKit.token(1)))
        #expect(requests[2].headers["apns-collapse-id"] == nil)
        #expect(requests[2].headers["apns-expiration"] == "0")
        // One token for all three pushes, and one connection multiplexing them.
        #expect(Set(requests.map { $0.headers["authorization"] }).count == 1)
        #expect(await channel.token.signed == 1)
        #expect(kit.stub.connectionCount == 1)
    }

    @Test("each APNs answer is classified: 410 and BadDeviceToken remove the device (with 410's timestamp), 429 and 5xx retry, other refusals fail with APNs' reason")
    func answers() async throws {
        let kit = try await PushKit()
        let (channel, client) = try kit.channel()
        kit.stub.script([
            .error(status: 410, reason: "Unregistered", timestamp: 1_780_000_000_000),
            .error(status: 400, reason: "BadDeviceToken"),
            .error(status: 400, reason: "DeviceTokenNotForTopic"),
            .error(status: 429, reason: "TooManyRequests"),
            .error(status: 500, reason: "InternalServerError"),
            .error(status: 503, reason: "ServiceUnavailable"),
            .error(status: 403, reason: "InvalidProviderToken"),
            .error(status: 400, reason: "BadCollapseId"),
        ])
        var outcomes: [DeliveryOutcome] = []
        for index in 0..<8 { outcomes.append(await channel.deliver(PushKit.alert("a\(index)", token: PushKit.token(index)))) }
        await kit.finish(client)
        #expect(outcomes == [
            .deviceGone(reason: "APNs 410 Unregistered", invalidSince: Date(timeIntervalSince1970: 1_780_000_000)),
            .deviceGone(reason: "APNs 400 BadDeviceToken", invalidSince: nil),
            .deviceGone(reason: "APNs 400 DeviceTokenNotForTopic", invalidSince: nil),
            .retry(reason: "APNs 429 TooManyRequests", retryAfter: nil),
            .retry(reason: "APNs 500 InternalServerError", retryAfter: nil),
            .retry(reason: "APNs 503 ServiceUnavailable", retryAfter: nil),
            .failed(reason: "APNs 403 InvalidProviderToken"),
            .failed(reason: "APNs 400 BadCollapseId"),
        ])
    }

    @Test("a stream reset and a push left unanswered past the timeout may have arrived: uncertain, never 'never sent'; a refused connection is a plain retry")
    func noAnswer() async throws {
        // The reset within the usual 10 s bound (a busy machine answers late, never this late); the hang against 2 s.
        let kit = try await PushKit()
        let (channel, client) = try kit.channel()
        var impatient = kit.settings
        impatient.timeout = .seconds(2)
        let quick = try ApnsChannel(settings: impatient, client: client)
        kit.stub.script([.resetStream], for: PushKit.token(1))
        kit.stub.script([.hang], for: PushKit.token(2))
        let reset = await channel.deliver(PushKit.alert("a1", token: PushKit.token(1)))
        let hung = await quick.deliver(PushKit.alert("a2", token: PushKit.token(2)))
        await kit.finish(client)
        guard case .uncertain(let resetReason) = reset else { Issue.record("a reset stream: \(reset)"); return }
        #expect(resetReason.contains("reset the stream"))
        guard case .uncertain(let hungReason) = hung else { Issue.record("no answer: \(hung)"); return }
        #expect(hungReason.contains("no answer from APNs within 2 s"))

        // The stub is gone: nothing was sent.
        let (late, lateClient) = try kit.channel()
        let refused = await late.deliver(PushKit.alert("a3", token: PushKit.token(3)))
        try? await lateClient.shutdown()
        guard case .retry = refused else { Issue.record("a refused connection: \(refused)"); return }
    }

    @Test("one provider token is reused for 50 minutes then replaced; one refused as expired is replaced once, and only when 20 minutes old (APNs' rules)")
    func tokenLifetime() async throws {
        let start = Date(timeIntervalSince1970: 1_781_107_200)
        let wire = ManualWallClock(start)
        // The stub's clock runs 61 minutes ahead of the channel's: every token the channel signs looks expired to it at first.
        let stubOffset = Locked<TimeInterval>(61 * 60)
        let kit = try await PushKit(stubNow: { wire.now().addingTimeInterval(stubOffset.get()) })
        let (channel, client) = try kit.channel(transport: TransportClock(following: wire))
        // A token 0 s old refused as expired: the clocks disagree, no new token (it would be refused the same way).
        let skewed = await channel.deliver(PushKit.alert("a1", token: PushKit.token(1)))
        #expect(skewed == .retry(reason: "APNs 403 ExpiredProviderToken for a token 0 s old: check this machine's clock", retryAfter: nil))
        #expect(await channel.token.signed == 1)
        // 21 minutes on: still the same token (under 50 minutes); refused as expired, replaced once, and the retry goes through.
        wire.advance(by: 21 * 60)
        stubOffset.set(40 * 60)
        #expect(await channel.deliver(PushKit.alert("a1", token: PushKit.token(1), attempt: 2)) == .delivered)
        #expect(await channel.token.signed == 2)
        // In step: reused for every push until it is 50 minutes old.
        stubOffset.set(0)
        for index in 0..<5 { #expect(await channel.deliver(PushKit.alert("b\(index)", token: PushKit.token(index))) == .delivered) }
        #expect(await channel.token.signed == 2)
        wire.advance(by: 50 * 60)
        #expect(await channel.deliver(PushKit.alert("c", token: PushKit.token(9))) == .delivered)
        #expect(await channel.token.signed == 3)
        await kit.finish(client)
        let refused = kit.stub.requests.filter { $0.reply == .error(status: 403, reason: "ExpiredProviderToken") }
        #expect(refused.count == 2)
    }

    @Test("after the first push opens the connection, 100 pushes at once share it and the token, each stream answered")
    func concurrentStreams() async throws {
        let kit = try await PushKit()
        let (channel, client) = try kit.channel()
        #expect(await channel.deliver(PushKit.alert("first", token: PushKit.token(1000))) == .delivered)
        let outcomes = await withTaskGroup(of: DeliveryOutcome.self, returning: [DeliveryOutcome].self) { group in
            for index in 0..<100 { group.addTask { await channel.deliver(PushKit.alert("a\(index)", token: PushKit.token(index))) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        await kit.finish(client)
        #expect(outcomes.count == 100 && outcomes.allSatisfy { $0 == .delivered })
        #expect(Set(kit.stub.delivered.map(\.token)).count == 101)
        #expect(await channel.token.signed == 1)
        #expect(kit.stub.connectionCount == 1)
    }
}
