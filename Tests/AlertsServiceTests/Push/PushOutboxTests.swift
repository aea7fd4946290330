@testable import AlertsService
import FareLensBus
import FareLensStore
import FareLensMessages
import FareLensTesting
import Foundation
import GRDB
import Testing

/// Push through the outbox: one decision per user, one row per device, each
/// delivered once; devices APNs says are gone are removed.
@Suite struct PushOutboxTests {
    @Test("one sent decision fans out to every device of its user (the webhook still once), each push carrying its device, route, expiry and the APNs payload; a user without devices gets no push row")
    func fanOut() async throws {
        let webhook = RecordingChannel(.webhook)
        let push = RecordingChannel(.push)
        let fixture = try AlertsFixture(channels: [webhook, push])
        let ana = try await fixture.user("ana@example.com")
        let ben = try await fixture.user("ben@example.com")
        _ = try await DeviceRegistryTests.register(fixture, ana, PushKit.token(1))
        _ = try await DeviceRegistryTests.register(fixture, ana, PushKit.token(2), environment: .sandbox)
        let decided = await fixture.alerts.decide([fixture.crossing(ana, sequence: 1), fixture.crossing(ben, sequence: 2)])
        #expect(decided.map(\.decision) == [AlertDecision.sent.rawValue, AlertDecision.sent.rawValue])
        #expect(try fixture.outbox().filter { $0.channel == AlertChannel.push.rawValue }.map(\.address).sorted() == [PushKit.token(1), PushKit.token(2)])
        await fixture.alerts.delivery.deliverDue()
        #expect(webhook.received.get().count == 2)
        let pushed = push.received.get().sorted { $0.device?.token ?? "" < $1.device?.token ?? "" }
        try #require(pushed.count == 2)
        let alert = try #require(decided.first { $0.userID == ana })
        #expect(pushed.map(\.alertID) == [alert.alertID, alert.alertID])
        #expect(pushed.map { $0.device?.environment } == [.production, .sandbox])
        #expect(pushed[0].collapseID == "JFK-NRT")
        #expect(pushed[0].expiresAt == Date(unixMilliseconds: alert.decidedAtUnixMs).addingTimeInterval(24 * 3_600))
        let payload = try #require(try JSONSerialization.jsonObject(with: pushed[0].body) as? [String: Any])
        let aps = try #require(payload["aps"] as? [String: Any])
        #expect((aps["alert"] as? [String: String])?["title"] == alert.title)
        #expect(aps["thread-id"] as? String == "route.JFK-NRT" && aps["category"] as? String == "DEAL_ALERT")
        #expect(payload["alert_id"] as? String == alert.alertID && payload["route"] as? String == "JFK-NRT")
        #expect(try fixture.rows(ana)[0].message.deliveryState == .delivered)
    }

    @Test("a deal's push is kept by APNs until the deal's own expiry (apns-expiration), not a day after the decision; a crossing's, which names none, for a day")
    func dealExpiry() async throws {
        let push = RecordingChannel(.push)
        let fixture = try AlertsFixture(channels: [push])
        let ana = try await fixture.user("ana@example.com", airports: ["JFK"])
        _ = try await DeviceRegistryTests.register(fixture, ana, PushKit.token(1))
        var deal = Deal()
        (deal.dealID, deal.origin, deal.destination, deal.price) = ("d-1", "JFK", "NRT", usd(65_000))
        (deal.score.score, deal.score.discountBasisPoints) = (92, 3_500)
        let expiry = fixture.clock.now().addingTimeInterval(3 * 86_400).unixMilliseconds
        deal.expiresAtUnixMs = expiry
        let users = try await fixture.alerts.audience.preferring("JFK", orMetro: nil)
        let candidates = users.map { AlertsService.candidate(for: deal, user: $0, watchesRoute: false) }
        let rows = await fixture.alerts.decide([PendingEvent(key: InboxKey(publisher: "scoring", sequence: 1), consumer: AlertsService.dealConsumer, candidates: candidates)])
        try #require(rows.map(\.decision) == [AlertDecision.sent.rawValue])
        await fixture.alerts.delivery.deliverDue()
        #expect(push.received.get().map(\.expiresAt) == [Date(unixMilliseconds: expiry)])
        #expect(try fixture.rows(ana).first?.expiresAtUnixMs == expiry, "kept on the alert row, so a retry days later carries it too")
    }

    @Test("through the APNs stub: a 500 is retried under the same apns-id; 410 removes its device (a device registered again after 410's timestamp stays); the next alert goes to the devices left")
    func goneDevices() async throws {
        let kit = try await PushKit()
        let (channel, client) = try kit.channel()
        let fixture = try AlertsFixture(channels: [channel])
        let ana = try await fixture.user("ana@example.com", tier: .pro)
        for index in 1...3 { _ = try await DeviceRegistryTests.register(fixture, ana, PushKit.token(index)) }
        let registeredMs = fixture.clock.now().unixMilliseconds
        // Token 1: 410, invalid since after it registered; token 2: a 500; token 3: 410 timestamped before it registered.
        kit.stub.script([.error(status: 410, reason: "Unregistered", timestamp: registeredMs + 1)], for: PushKit.token(1))
        kit.stub.script([.error(status: 500, reason: "InternalServerError")], for: PushKit.token(2))
        kit.stub.script([.error(status: 410, reason: "Unregistered", timestamp: registeredMs - 60_000)], for: PushKit.token(3))
        let first = try #require(await fixture.alerts.decide([fixture.crossing(ana, sequence: 1)]).first)
        #expect(await fixture.alerts.delivery.deliverDue() == 3)
        fixture.clock.advance(by: 10)
        #expect(await fixture.alerts.delivery.deliverDue() == 1)
        let rows = try fixture.outbox().sorted { $0.address < $1.address }
        #expect(rows.map(\.status) == [.deviceRemoved, .delivered, .deviceRemoved])
        #expect(rows.map(\.lastError) == ["APNs 410 Unregistered", "", "APNs 410 Unregistered"])
        // Token 3 registered after APNs' timestamp: the phone got a new registration since, so it stays.
        #expect(try await DeviceRegistryTests.devices(fixture, ana).map(\.token).sorted() == [PushKit.token(2), PushKit.token(3)])
        let device2 = try #require(try await DeviceRegistryTests.devices(fixture, ana).first { $0.token == PushKit.token(2) })
        #expect(device2.lastOutcome == "delivered")
        #expect(try fixture.rows(ana)[0].message.deliveryState == .delivered)
        // The history shows each device's delivery.
        var history = AlertHistoryRequest()
        history.userID = ana
        let record = try #require(try await fixture.bus.request(history).alerts.first)
        #expect(record.deliveries.map(\.channel) == [.push, .push, .push])
        #expect(record.deliveries.map(\.deviceToken) == [PushKit.token(1), PushKit.token(2), PushKit.token(3)])
        #expect(record.deliveries.map(\.state) == [.deviceRemoved, .delivered, .deviceRemoved])
        #expect(record.deliveries.map(\.attempts) == [1, 2, 1])
        let toDevice2 = kit.stub.requests.filter { $0.token == PushKit.token(2) }
        #expect(toDevice2.count == 2 && toDevice2[0].headers["apns-id"] == toDevice2[1].headers["apns-id"])

        let second = try #require(await fixture.alerts.decide([fixture.crossing(ana, "JFK", "LAX", sequence: 2)]).first)
        #expect(second.alertID != first.alertID)
        #expect(await fixture.alerts.delivery.deliverDue() == 2)
        #expect(Set(kit.stub.delivered.filter { $0.body.range(of: Data(second.alertID.utf8)) != nil }.map(\.token)) == [PushKit.token(2), PushKit.token(3)])
        await kit.finish(client)
    }

    @Test("a device unregistered after the decision is not pushed to: its row ends as device-removed without an attempt")
    func unregisteredBeforeDelivery() async throws {
        let push = RecordingChannel(.push)
        let fixture = try AlertsFixture(channels: [push])
        let ana = try await fixture.user("ana@example.com")
        _ = try await DeviceRegistryTests.register(fixture, ana, PushKit.token(1))
        _ = await fixture.alerts.decide([fixture.crossing(ana, sequence: 1)])
        var unregister = UnregisterDeviceRequest()
        unregister.userID = ana
        unregister.token = PushKit.token(1)
        _ = try await fixture.bus.request(unregister)
        await fixture.alerts.delivery.deliverDue()
        #expect(push.received.get().isEmpty)
        #expect(try fixture.outbox().map(\.status) == [.deviceRemoved])
        #expect(try fixture.outbox()[0].lastError == "device no longer registered to this user; not sent")
    }
}
