@testable import AlertsService
import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing

/// The outbox: retries with backoff, dead letters, replay, 410, and the re-check before delivery.
@Suite struct OutboxTests {
    @Test("a retried alert waits its backoff (or Retry-After), keeps its id, and is dead-lettered after the attempt limit; replay sends it again under the same id")
    func retryDeadLetterReplay() async throws {
        let fixture = try AlertsFixture()
        let user = try await fixture.user("ana@example.com")
        let alert = try #require(await fixture.alerts.decide([fixture.crossing(user, sequence: 1)]).first)
        fixture.channel.script.set([.retry(reason: "HTTP 503", retryAfter: nil), .retry(reason: "HTTP 429", retryAfter: .seconds(30)), .retry(reason: "HTTP 500", retryAfter: nil)])
        #expect(await fixture.alerts.delivery.deliverDue() == 1)
        #expect(try fixture.outbox()[0].nextAttemptAtUnixMs == fixture.clock.now().addingTimeInterval(10).unixMilliseconds)
        #expect(await fixture.alerts.delivery.deliverDue() == 0)  // not due yet
        fixture.clock.advance(by: 10)
        #expect(await fixture.alerts.delivery.deliverDue() == 1)
        #expect(try fixture.outbox()[0].nextAttemptAtUnixMs == fixture.clock.now().addingTimeInterval(30).unixMilliseconds)
        fixture.clock.advance(by: 30)
        #expect(await fixture.alerts.delivery.deliverDue() == 1)
        let dead = try fixture.outbox()[0]
        #expect(dead.status == .deadLettered && dead.lastError == "HTTP 500; gave up after 3 attempts")
        #expect(try fixture.rows(user)[0].message.deliveryState == .deadLettered)

        var replay = ReplayAlertsRequest()
        replay.alertID = alert.alertID
        #expect(try await fixture.bus.request(replay).alertIds == [alert.alertID])
        #expect(await fixture.alerts.delivery.deliverDue() == 1)
        #expect(fixture.channel.deliveredIDs == Array(repeating: alert.alertID, count: 4))
        #expect(fixture.channel.received.get().map(\.attempt) == [1, 2, 3, 1])
        #expect(Set(fixture.channel.received.get().map(\.body)).count == 1)
        #expect(try fixture.rows(user)[0].message.deliveryState == .delivered)
        // A delivered alert is not replayed (it would be sent twice).
        await #expect { try await fixture.bus.request(replay) } throws: { ($0 as? BusError)?.remoteCode == "not-dead-lettered" }
        replay.alertID = "a-nope"
        await #expect { try await fixture.bus.request(replay) } throws: { ($0 as? BusError)?.remoteCode == "not-found" }
    }

    @Test("a permanent failure is dead-lettered at once; 410 disables the channel, holds later alerts, and replay re-enables it")
    func permanentAndGone() async throws {
        let fixture = try AlertsFixture()
        let user = try await fixture.user("ben@example.com", tier: .pro)
        _ = await fixture.alerts.decide([fixture.crossing(user, sequence: 1)])
        fixture.channel.script.set([.failed(reason: "HTTP 400")])
        await fixture.alerts.delivery.deliverDue()
        #expect(try fixture.outbox()[0].status == .deadLettered)
        _ = await fixture.alerts.decide([fixture.crossing(user, "JFK", "LAX", sequence: 2)])
        fixture.channel.script.set([.endpointGone(reason: "HTTP 410")])
        await fixture.alerts.delivery.deliverDue()
        _ = await fixture.alerts.decide([fixture.crossing(user, "JFK", "SFO", sequence: 3)])
        await fixture.alerts.delivery.deliverDue()
        #expect(fixture.channel.received.get().count == 2)  // the third was never attempted: the channel is off
        #expect(try fixture.outbox().map(\.status) == [.deadLettered, .endpointDisabled, .endpointDisabled])
        var replay = ReplayAlertsRequest()
        replay.sinceUnixMs = 0
        #expect(try await fixture.bus.request(replay).alertIds.count == 3)
        await fixture.alerts.delivery.deliverDue()
        #expect(try fixture.outbox().allSatisfy { $0.status == .delivered })
        #expect(fixture.channel.received.get().count == 5)
    }

    @Test("stale-price: re-checked just before delivery, a fare that rose is not sent and the decision says why; a fare that held is sent")
    func stalePrice() async throws {
        let fixture = try AlertsFixture()
        let user = try await fixture.user("cy@example.com")
        let risen = try #require(await fixture.alerts.decide([fixture.crossing(user, cents: 65_000, sequence: 1)]).first)
        let held = try #require(await fixture.alerts.decide([fixture.crossing(user, "JFK", "LAX", cents: 30_000, sequence: 2)]).first)
        fixture.directory.prices.set(["JFK-NRT": 65_001, "JFK-LAX": 30_000])
        await fixture.alerts.delivery.deliverDue()
        #expect(fixture.channel.deliveredIDs == [held.alertID])
        let rows = Dictionary(uniqueKeysWithValues: try fixture.rows(user).map { ($0.alertID, $0) })
        #expect(rows[risen.alertID]?.decisionValue == .stalePrice)
        #expect(rows[risen.alertID]?.reason == "Re-checked just before delivery: the fare rose to $650.01 (alerted at $650); not sent")
        #expect(rows[risen.alertID]?.message.deliveryState == .droppedStale)
        #expect(rows[held.alertID]?.message.deliveryState == .delivered)
        // A stale alert did not use the day's cap: two more are sent, then the cap (3) is reached.
        let more = await fixture.alerts.decide([fixture.crossing(user, "JFK", "SFO", sequence: 3), fixture.crossing(user, "JFK", "CDG", sequence: 4), fixture.crossing(user, "JFK", "SYD", sequence: 5)])
        #expect(more.map(\.decisionValue).sorted { $0.rawValue < $1.rawValue } == [.sent, .sent, .capped])
    }

    @Test("when search cannot confirm the price, the alert is delivered as decided")
    func recheckUnavailable() async throws {
        let fixture = try AlertsFixture()
        let user = try await fixture.user("dee@example.com")
        let alert = try #require(await fixture.alerts.decide([fixture.crossing(user, sequence: 1)]).first)
        await fixture.alerts.delivery.deliverDue()  // no price for the route: search answers no-fares-available
        #expect(fixture.channel.deliveredIDs == [alert.alertID])
        #expect(fixture.directory.searches.get() == 1)
    }

    @Test("run() delivers what the outbox holds and publishes AlertDecided and AlertDelivered")
    func runDelivers() async throws {
        let fixture = try AlertsFixture()
        let decided = fixture.bus.subscribe(AlertDecided.self)
        let delivered = fixture.bus.subscribe(AlertDelivered.self)
        let user = try await fixture.user("eve@example.com")
        let task = Task { try await fixture.alerts.run() }
        defer { task.cancel() }
        let alert = try #require(await fixture.alerts.decide([fixture.crossing(user, sequence: 1)]).first)
        let events = try await firstEvents(1, of: delivered)
        #expect(events[0].alertID == alert.alertID && events[0].attempts == 1 && events[0].channel == .webhook)
        #expect(try await firstEvents(1, of: decided)[0].alert.decision == .sent)
    }

    @Test("a pass counts the outbox's pending rows at most once a second (the count reads every pending row's index entry)")
    func depthCountedOnceASecond() async throws {
        let fixture = try AlertsFixture()
        let user = try await fixture.user("dee@example.com", tier: .pro)
        _ = await fixture.alerts.decide([fixture.crossing(user, "JFK", "NRT", sequence: 1)])
        await fixture.alerts.delivery.deliverDue()
        #expect(await fixture.alerts.delivery.outboxDepth?.pending == 1)
        _ = await fixture.alerts.decide([fixture.crossing(user, "JFK", "LAX", sequence: 2), fixture.crossing(user, "JFK", "SFO", sequence: 3)])
        await fixture.alerts.delivery.deliverDue()
        #expect(await fixture.alerts.delivery.outboxDepth?.pending == 1)  // the same instant: not counted again
        fixture.clock.advance(by: 1)
        let three = (4...6).map { fixture.crossing(user, "JFK", ["LHR", "CDG", "SYD"][Int($0) - 4], sequence: UInt64($0)) }
        #expect(await fixture.alerts.decide(three).map(\.decisionValue) == [.sent, .sent, .sent])
        await fixture.alerts.delivery.deliverDue()
        #expect(await fixture.alerts.delivery.outboxDepth?.pending == 3)
        #expect(fixture.channel.received.get().count == 6)
    }

    @Test("an alert on two channels is pending while either is and carries the undelivered one's error; once delivered, its delivery time is its first channel's; alerts recorded in one pass keep their own summaries")
    func twoChannels() async throws {
        let webhook = RecordingChannel(.webhook)
        let log = RecordingChannel(.log)
        let fixture = try AlertsFixture(channels: [webhook, log])
        let ana = try await fixture.user("ana@example.com")
        let ben = try await fixture.user("ben@example.com")
        _ = await fixture.alerts.decide([fixture.crossing(ana, sequence: 1), fixture.crossing(ben, sequence: 2)])
        webhook.script.set([.retry(reason: "HTTP 503", retryAfter: nil)])
        let firstPass = fixture.clock.now().unixMilliseconds
        #expect(await fixture.alerts.delivery.deliverDue() == 4)
        // The webhook's first attempt, whichever alert it was for, is the one retried.
        let retriedID = try #require(webhook.received.get().first?.alertID)
        let alerts = try fixture.rows(ana) + fixture.rows(ben)
        let retried = try #require(alerts.first { $0.alertID == retriedID }).message
        let other = try #require(alerts.first { $0.alertID != retriedID }).message
        // Pending, though the log channel delivered it already: no delivery time until it is delivered (the proto's rule).
        #expect(retried.deliveryState == .pending && retried.deliveryError == "HTTP 503" && retried.attempts == 1 && retried.deliveredAtUnixMs == 0)
        #expect(other.deliveryState == .delivered && other.deliveryError == "" && other.attempts == 1 && other.deliveredAtUnixMs == firstPass)
        fixture.clock.advance(by: 10)
        #expect(await fixture.alerts.delivery.deliverDue() == 1)
        let after = try #require((try fixture.rows(ana) + fixture.rows(ben)).first { $0.alertID == retriedID }).message
        #expect(after.deliveryState == .delivered && after.deliveryError == "" && after.attempts == 2 && after.deliveredAtUnixMs == firstPass)
    }
}
