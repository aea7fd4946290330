@testable import AlertsService
import Configuration
import FareLensMessages
import FareLensTesting
import Foundation
import Testing

/// Decisions are kept `alerts.retentionDays` (90), then deleted with their outbox rows.
@Suite("Alert retention")
struct RetentionTests {
    @Test("after 90 days a decision and its outbox row are deleted, a younger one stays, and ended mutes go; the pass runs once an hour of clock time")
    func retention() async throws {
        let fixture = try AlertsFixture()
        let user = try await fixture.user("rex@example.com")
        let old = await fixture.alerts.decide([fixture.crossing(user, "JFK", "NRT", sequence: 1)])
        var mute = MuteRouteRequest()
        (mute.userID, mute.origin, mute.destination) = (user, "JFK", "LAX")
        _ = try await fixture.alerts.mute(mute)
        fixture.clock.advance(by: 60 * 86_400)
        let young = await fixture.alerts.decide([fixture.crossing(user, "JFK", "SFO", sequence: 2)])
        #expect(old.count == 1 && young.count == 1)
        #expect(try fixture.outbox().count == 2)

        fixture.clock.advance(by: 30 * 86_400 + 60)  // the first decision is 90 days and a minute old
        #expect(await fixture.alerts.applyRetention(now: fixture.clock.now()) == 1)
        #expect(try fixture.rows(user).map(\.alertID) == young.map(\.alertID))
        #expect(try fixture.outbox().map(\.alertID) == young.map(\.alertID))
        let mutes = try await fixture.database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM route_mute") }
        #expect(mutes == 0, "a 30-day mute ended two months ago")

        // Paced by the clock: once, then not again within the hour.
        #expect(await fixture.alerts.applyRetentionIfDue())
        fixture.clock.advance(by: 3_599)
        #expect(await !fixture.alerts.applyRetentionIfDue())
        fixture.clock.advance(by: 61 * 86_400)  // now the young one is 91 days old too
        #expect(await fixture.alerts.applyRetentionIfDue())
        #expect(try fixture.rows(user).isEmpty && fixture.outbox().isEmpty)
    }

    @Test("alerts.retentionDays is read and checked")
    func setting() throws {
        func settings(_ value: String) throws -> AlertDeliverySettings {
            let reader = ConfigReader(providers: [InMemoryProvider(values: [AbsoluteConfigKey(stringLiteral: "alerts.retentionDays"): ConfigValue(.string(value), isSecret: false)])])
            return try AlertDeliverySettings(reader: reader.scoped(to: "alerts"))
        }
        #expect(try settings("30").retentionDays == 30)
        #expect(AlertDeliverySettings().retentionDays == 90)
        let error = #expect(throws: AlertDeliverySettingsError.self) { try settings("0") }
        #expect(error?.key == "alerts.retentionDays")
    }
}
