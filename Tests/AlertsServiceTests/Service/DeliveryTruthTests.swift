@testable import AlertsService
import FareLensBus
import FareLensMessages
import FareLensRuntime
import FareLensServiceKit
import FareLensTesting
import Foundation
import Testing

/// What the outbox records is what happened on the wire (issue #58): retries
/// are due by real time whatever the business clock does, an alert whose
/// attempt may have arrived is never judged again nor reported "never sent",
/// and a dead letter has no delivery time.
@Suite struct DeliveryTruthTests {
    @Test("a retry waits its backoff in real time: the business clock three days ahead does not make it due, the transport clock does")
    func backoffIsRealTime() async throws {
        let fixture = try AlertsFixture(wireStart: Date(timeIntervalSince1970: 1_795_000_000))
        let user = try await fixture.user("ana@example.com")
        _ = await fixture.alerts.decide([fixture.crossing(user, sequence: 1)])
        fixture.channel.script.set([.retry(reason: "HTTP 503", retryAfter: nil)])
        #expect(await fixture.alerts.delivery.deliverDue() == 1)
        #expect(try fixture.outbox()[0].nextAttemptAtUnixMs == fixture.wire.now().addingTimeInterval(10).unixMilliseconds)
        fixture.clock.advance(by: 3 * 86_400)
        #expect(await fixture.alerts.delivery.deliverDue() == 0, "the business clock moved; the backoff is real time")
        fixture.wire.advance(by: 9)
        #expect(await fixture.alerts.delivery.deliverDue() == 0)
        fixture.wire.advance(by: 1)
        #expect(await fixture.alerts.delivery.deliverDue() == 1)
        #expect(try fixture.rows(user)[0].message.deliveryState == .delivered)
    }

    @Test("an attempt that may have arrived is retried with the same id and body and never re-judged: a price that rose meanwhile does not drop it, and it ends delivered")
    func uncertainIsNeverRejudged() async throws {
        let fixture = try AlertsFixture()
        let user = try await fixture.user("ben@example.com")
        let alert = try #require(await fixture.alerts.decide([fixture.crossing(user, cents: 65_000, sequence: 1)]).first)
        fixture.directory.prices.set(["JFK-NRT": 65_000])
        fixture.channel.script.set([.uncertain(reason: "timed out after 5 s; the receiver may have it")])
        #expect(await fixture.alerts.delivery.deliverDue() == 1)
        #expect(fixture.directory.searches.get() == 1, "re-checked once, before the first attempt")
        // The fare rises; a re-check now would drop it as stale, although the receiver may have it.
        fixture.directory.prices.set(["JFK-NRT": 90_000])
        fixture.clock.advance(by: 10)
        #expect(await fixture.alerts.delivery.deliverDue() == 1)
        #expect(fixture.directory.searches.get() == 1, "not re-checked after an attempt left")
        #expect(fixture.channel.deliveredIDs == [alert.alertID, alert.alertID])
        #expect(Set(fixture.channel.received.get().map(\.body)).count == 1)
        let record = try fixture.rows(user)[0]
        #expect(record.decisionValue == .sent)
        #expect(record.message.deliveryState == .delivered)
    }

    @Test("dead-lettered after an attempt that may have arrived is MAYBE_DELIVERED, saying so, not DEAD_LETTERED ('never sent')")
    func uncertainDeadLetter() async throws {
        let fixture = try AlertsFixture()
        let user = try await fixture.user("cy@example.com")
        _ = await fixture.alerts.decide([fixture.crossing(user, sequence: 1)])
        fixture.channel.script.set([.uncertain(reason: "timed out after 5 s; the receiver may have it"), .retry(reason: "HTTP 503", retryAfter: nil), .retry(reason: "HTTP 503", retryAfter: nil)])
        for _ in 0 ..< 3 {
            #expect(await fixture.alerts.delivery.deliverDue() == 1)
            fixture.clock.advance(by: 60)
        }
        let row = try fixture.outbox()[0]
        #expect(row.status == .deadLettered && row.uncertainAttempts == 1)
        #expect(row.lastError == "HTTP 503; gave up after 3 attempts (1 left without an answer: the receiver may have it)")
        let record = try fixture.rows(user)[0].message
        #expect(record.deliveryState == .maybeDelivered)
        #expect(record.deliveredAtUnixMs == 0)
    }

    @Test("a dead letter has no delivery time, even when another channel delivered it (62 dead letters carried one)")
    func deadLetterHasNoDeliveryTime() {
        let webhook = OutboxRow.Outcome(status: .deadLettered, attempts: 5, lastError: "HTTP 400", finishedAtUnixMs: 2_000)
        let log = OutboxRow.Outcome(status: .delivered, attempts: 1, lastError: "", finishedAtUnixMs: 1_000)
        let summary = DeliverySummary([webhook, log])
        #expect(summary.state == .deadLettered && summary.deliveredAtUnixMs == 0)
        #expect(DeliverySummary([log]).deliveredAtUnixMs == 1_000)
        #expect(DeliverySummary([OutboxRow.Outcome(status: .pending, attempts: 1, lastError: "HTTP 503", finishedAtUnixMs: 0), log]).deliveredAtUnixMs == 0)
    }
}

/// The node's webhook channel, as the service's entry builds it, on a
/// business clock ten days ahead of real time (as the demo's is).
@Suite struct WebhookTimestampTests {
    @Test("the webhook the entry builds stamps real time, not the business clock ten days ahead; a Standard Webhooks receiver accepts it")
    func entryWebhookIsRealTime() async throws {
        try await withReceiver { server, url in
            server.respond(to: "/hook", with: StubResponse(status: 200))
            let business = ManualWallClock(Date().addingTimeInterval(10 * 86_400))
            let database = try AlertsFixture.database("alerts", AlertsServiceEntry.migrations)
            let context = ServiceContext(bus: MessageBus(), database: database, logger: quietLogger(), clock: business)
            var settings = AlertDeliverySettings()
            settings.webhook = WebhookSettings(url: url, secrets: try DeliveryFixtures.secrets(), timeout: .seconds(5))
            let webhook = try #require(AlertsServiceEntry.channels(settings, context: context).first { $0.channel == .webhook })
            let before = Date()
            #expect(await webhook.deliver(DeliveryFixtures.alert()) == .delivered)
            let after = Date()
            let request = try #require(server.requests(to: "/hook").first)
            let stamp = try #require(request.header("webhook-timestamp").flatMap(Double.init))
            #expect(stamp >= before.timeIntervalSince1970.rounded(.down) && stamp <= after.timeIntervalSince1970, "webhook-timestamp \(stamp): real time was \(before.timeIntervalSince1970)")
            #expect(try ThirdPartyReceiver(secret: DeliveryFixtures.secretText).check(request, now: Date()) == .accepted)
        }
    }
}
