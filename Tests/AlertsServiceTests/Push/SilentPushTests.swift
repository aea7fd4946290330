@testable import AlertsService
import FareLensBus
import FareLensMessages
import FareLensStore
import FareLensTesting
import Foundation
import GRDB
import Testing

/// Silent pushes: what changed on a watchlist, to each device of its owner, once, the newest diff winning.
@Suite struct SilentPushTests {
    static func priceChanged(_ user: String, watchlist: String = "w-3f9a", cents: Int64, previous: Int64?) -> PriceChanged {
        var event = PriceChanged()
        event.userID = user
        event.watchlistID = watchlist
        event.origin = "JFK"
        event.destination = "NRT"
        event.check.lowestPrice = usd(cents)
        event.check.checkedAtUnixMs = AlertsFixture.noonNewYork.unixMilliseconds
        if let previous { event.previousPrice = usd(previous) }
        return event
    }

    @Test("a price change is one background push per device carrying only the diff; a newer change of the same watchlist replaces one still waiting; an event seen twice queues once")
    func diffPerDevice() async throws {
        let push = RecordingChannel(.push)
        let fixture = try AlertsFixture(channels: [push])
        let ana = try await fixture.user("ana@example.com")
        _ = try await DeviceRegistryTests.register(fixture, ana, PushKit.token(1))
        _ = try await DeviceRegistryTests.register(fixture, ana, PushKit.token(2))
        let first = InboxKey(publisher: "watchlist-test", sequence: 1)
        await fixture.alerts.delivery.enqueueSilentPush(SilentPushPayload(Self.priceChanged(ana, cents: 70_000, previous: 72_000)), userID: ana, key: first)
        await fixture.alerts.delivery.enqueueSilentPush(SilentPushPayload(Self.priceChanged(ana, cents: 65_000, previous: 70_000)), userID: ana, key: InboxKey(publisher: "watchlist-test", sequence: 2))
        await fixture.alerts.delivery.enqueueSilentPush(SilentPushPayload(Self.priceChanged(ana, cents: 1, previous: 2)), userID: ana, key: first)
        #expect(try fixture.outbox().count == 2)
        await fixture.alerts.delivery.deliverDue()
        let sent = push.received.get()
        try #require(sent.count == 2)
        #expect(Set(sent.compactMap { $0.device?.token }) == [PushKit.token(1), PushKit.token(2)])
        #expect(sent.allSatisfy { $0.kind == .watchlistUpdate && $0.collapseID == "watchlist.w-3f9a" })
        let body = try #require(try JSONSerialization.jsonObject(with: sent[0].body) as? [String: Any])
        #expect((body["aps"] as? [String: Int]) == ["content-available": 1])
        #expect(body["change"] as? String == "price_changed" && body["watchlist_id"] as? String == "w-3f9a")
        #expect((body["lowest_price"] as? [String: Any])?["minor_units"] as? Int == 65_000)
        #expect((body["previous_price"] as? [String: Any])?["minor_units"] as? Int == 70_000)
        #expect(body["alert"] == nil && (body["aps"] as? [String: Any])?["alert"] == nil)
        // Not an alert: no decision was recorded.
        #expect(try fixture.rows(ana).isEmpty)
    }

    @Test("with the service running, a PriceChanged published on the bus reaches the user's device as a silent push; an announcement (nothing changed) sends none")
    func fromTheBus() async throws {
        let push = RecordingChannel(.push)
        let fixture = try AlertsFixture(channels: [push])
        let ana = try await fixture.user("ana@example.com")
        _ = try await DeviceRegistryTests.register(fixture, ana, PushKit.token(1))
        let running = Task { try await fixture.alerts.run() }
        var announced = WatchlistChanged()
        announced.change = .announced
        announced.watchlist.watchlistID = "w-1"
        announced.watchlist.userID = ana
        try await fixture.bus.publish(announced)
        var deleted = announced
        deleted.change = .deleted
        try await fixture.bus.publish(deleted)
        try await waitUntil("the deletion's silent push") { push.received.get().count >= 1 }
        running.cancel()
        _ = try? await running.value
        let sent = push.received.get()
        #expect(sent.count == 1)
        let body = try #require(try JSONSerialization.jsonObject(with: sent[0].body) as? [String: Any])
        #expect(body["change"] as? String == "deleted" && body["watchlist_id"] as? String == "w-1")
    }

    @Test("retention deletes silent pushes older than the decisions' retention by their id's time, and keeps younger ones")
    func retention() async throws {
        let push = RecordingChannel(.push)
        let fixture = try AlertsFixture(channels: [push])
        let ana = try await fixture.user("ana@example.com")
        _ = try await DeviceRegistryTests.register(fixture, ana, PushKit.token(1))
        await fixture.alerts.delivery.enqueueSilentPush(SilentPushPayload(Self.priceChanged(ana, watchlist: "w-old", cents: 70_000, previous: nil)), userID: ana, key: InboxKey(publisher: "p", sequence: 1))
        fixture.clock.advance(by: 89 * 86_400)
        await fixture.alerts.delivery.enqueueSilentPush(SilentPushPayload(Self.priceChanged(ana, watchlist: "w-new", cents: 70_000, previous: nil)), userID: ana, key: InboxKey(publisher: "p", sequence: 2))
        fixture.clock.advance(by: 2 * 86_400)
        _ = await fixture.alerts.applyRetention(now: fixture.clock.now())
        #expect(try fixture.outbox().map { AlertDelivery.watchlistID(ofSilentPush: $0.alertID) } == ["w-new"])
    }

    @Test("through the stub, a silent push goes as apns-push-type background with priority 5 and the watchlist as collapse id")
    func backgroundHeaders() async throws {
        let kit = try await PushKit()
        let (channel, client) = try kit.channel()
        let alert = OutboundAlert(
            alertID: "s0192f3a4b5c6.w-1.node/1", userID: "u1", kind: .watchlistUpdate, body: Data(#"{"aps":{"content-available":1}}"#.utf8), attempt: 1,
            device: PushDevice(token: PushKit.token(1), environment: .production), collapseID: "watchlist.w-1", expiresAt: nil)
        #expect(await channel.deliver(alert) == .delivered)
        await kit.finish(client)
        let headers = try #require(kit.stub.requests.first?.headers)
        #expect(headers["apns-push-type"] == "background" && headers["apns-priority"] == "5" && headers["apns-collapse-id"] == "watchlist.w-1")
    }
}

/// A tier change reaches the app as a silent push (issue #60): a downgrade names the preferred airports it removed.
@Suite struct TierChangePushTests {
    @Test("a downgrade to Free published on the bus is one silent push per device, naming the tier and the airports removed, collapsed per account")
    func downgradeTold() async throws {
        let push = RecordingChannel(.push)
        let fixture = try AlertsFixture(channels: [push])
        let ana = try await fixture.user("ana@example.com")
        _ = try await DeviceRegistryTests.register(fixture, ana, PushKit.token(1))
        _ = try await DeviceRegistryTests.register(fixture, ana, PushKit.token(2))
        let running = Task { try await fixture.alerts.run() }
        var change = TierChanged()
        change.userID = ana
        change.previous = .trial
        change.current = .free
        change.cause = .trialExpired
        change.removedPreferredAirports = ["LHR", "CDG"]
        change.atUnixMs = AlertsFixture.noonNewYork.unixMilliseconds
        try await fixture.bus.publish(change)
        try await waitUntil("the tier change's silent pushes") { push.received.get().count >= 2 }
        running.cancel()
        _ = try? await running.value
        let sent = push.received.get()
        #expect(sent.count == 2 && sent.allSatisfy { $0.kind == .watchlistUpdate && $0.collapseID == "account" })
        let body = try #require(try JSONSerialization.jsonObject(with: sent[0].body) as? [String: Any])
        #expect((body["aps"] as? [String: Int]) == ["content-available": 1])
        #expect(body["change"] as? String == "tier_changed" && body["tier"] as? String == "FREE")
        #expect(body["removed_preferred_airports"] as? [String] == ["LHR", "CDG"])
        #expect(body["watchlist_id"] == nil)
        #expect(try fixture.rows(ana).isEmpty, "not an alert: no decision")
    }
}
