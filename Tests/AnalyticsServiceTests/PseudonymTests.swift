import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing
@testable import AnalyticsService

@Suite("Pseudonyms")
struct PseudonymTests {
    @Test("no table holds a raw user id after client events, service events, alerts, trials, an opt-out and a commission; rows carry p1: pseudonyms")
    func noRawUserIDs() async throws {
        let fixture = try AnalyticsFixture()
        let users = ["u-ana0000000000001", "u-ben0000000000002", "u-cat0000000000003"]
        _ = try await fixture.service.record(Make.client("c1", users[0], .dealViewed, placement: .dealcard))
        var withProperties = Make.client("c2", users[0], .affiliateClicked, placement: .detail, subID: "ios-fl-d1-none-detail-a-pro")
        withProperties.properties = ["note": "clicked by \(users[0])"]
        _ = try await fixture.service.record(withProperties)
        _ = try await fixture.service.record(Make.client("c3", users[1], .alertOpened, alert: "a-1"))
        _ = try await fixture.service.setOptOut(optOut(users[2], true))
        await fixture.publish([
            Make.search(users[0], .userSearch, cacheHit: true, at: ms("2026-09-20")),
            Make.decided("a-1", users[1], .sent, at: ms("2026-09-20")),
            Make.tier(users[1], .unspecified, .trial, at: ms("2026-09-20")),
            Make.tier(users[1], .trial, .pro, at: ms("2026-09-21")),
            Make.search(users[2], .userSearch, cacheHit: false, at: ms("2026-09-20")),
        ])
        _ = try await fixture.service.reconcile(Make.commission("n1", subID: "ios-fl-d1-none-detail-a-pro", .pending, cents: 500, bookedAt: ms("2026-09-21")))

        let texts = try fixture.everyText()
        for user in users {
            let leaks = texts.filter { $0.text.contains(user) }
            #expect(leaks.isEmpty, "\(user) found in \(leaks.map(\.table))")
        }
        // The rows are there, under version-1 pseudonyms.
        #expect(try fixture.count("client_event") == 3 && fixture.count("service_event") == 4 && fixture.count("trial_user") == 1)
        let pseudonyms = texts.filter { ["client_event", "service_event", "opt_out", "trial_user", "alert_seen"].contains($0.table) && $0.text.hasPrefix("p") }
        #expect(pseudonyms.contains { $0.text.wholeMatch(of: /p1:[0-9a-f]{32}/) != nil })
        // The user id inside the property became the pseudonym.
        #expect(texts.contains { $0.table == "client_event" && $0.text.contains("clicked by p1:") })
    }

    @Test("a user's pseudonym is the same for the same key and differs between keys and users")
    func stable() {
        let one = PseudonymKeyring([PseudonymKey(version: 1, secret: Data(repeating: 1, count: 32))])
        let both = PseudonymKeyring([PseudonymKey(version: 1, secret: Data(repeating: 1, count: 32)), PseudonymKey(version: 2, secret: Data(repeating: 2, count: 32))])
        #expect(one.current("u-1") == one.current("u-1") && one.current("u-1") != one.current("u-2"))
        #expect(both.currentVersion == 2 && both.current("u-1").hasPrefix("p2:"))
        #expect(both.all("u-1") == [both.current("u-1"), one.current("u-1")])
    }

    @Test("a keyring that remembers two users gives every user of many, asked again and again, the pseudonyms the keys make")
    func remembered() {
        let keys = [PseudonymKey(version: 1, secret: Data(repeating: 1, count: 32)), PseudonymKey(version: 2, secret: Data(repeating: 2, count: 32))]
        let keyring = PseudonymKeyring(keys, remembered: 2)
        let users = (0..<7).map { "u-\($0)" }
        for user in users + users.reversed() + users {
            #expect(keyring.all(user) == [PseudonymKeyring.pseudonym(user, keys[1]), PseudonymKeyring.pseudonym(user, keys[0])], "\(user)")
            #expect(keyring.current(user) == PseudonymKeyring.pseudonym(user, keys[1]))
        }
    }

    @Test("after rotating to key 2, DeleteUserData erases the user's events recorded under key 1 and under key 2, and only theirs")
    func rotation() async throws {
        let database = try AnalyticsFixture.newDatabase()
        let before = try AnalyticsFixture(keys: "1:" + testKey(1), database: database)
        _ = try await before.service.record(Make.client("c1", "u-ana", .appOpened))
        _ = try await before.service.record(Make.client("c2", "u-ben", .appOpened))
        await before.publish([Make.search("u-ana", .userSearch, cacheHit: false, at: ms("2026-09-20"))])

        let after = try AnalyticsFixture(keys: "2:\(testKey(2)),1:\(testKey(1))", database: database)
        _ = try await after.service.record(Make.client("c3", "u-ana", .appOpened))
        await after.publish([Make.search("u-ana", .userSearch, cacheHit: true, at: ms("2026-09-21"))])
        let versions = try await database.writer.read { db in try String.fetchAll(db, sql: "SELECT substr(pseudonym, 1, 3) FROM client_event ORDER BY clientEventID") }
        #expect(versions == ["p1:", "p1:", "p2:"])

        let deleted = try await after.service.deleteUserData(deleteRequest("u-ana"))
        #expect(deleted.eventsDeleted == 4, "2 client + 2 service events, under both keys")
        #expect(try after.count("client_event") == 1 && after.count("service_event") == 0)
        // Roll-ups hold no user and stay.
        #expect(lines(try await after.report(.searches, "2026-09-20", "2026-09-21")) == [Line("user_search", 2, 1, 5000), Line("", 2, 1, 5000)])
    }

    @Test("a trial started under key 1 converts when the Pro change arrives after the rotation to key 2")
    func trialAcrossRotation() async throws {
        let database = try AnalyticsFixture.newDatabase()
        let before = try AnalyticsFixture(keys: "1:" + testKey(1), database: database)
        await before.publish([Make.tier("u-ana", .unspecified, .trial, at: ms("2026-09-21"))])
        let after = try AnalyticsFixture(keys: "2:\(testKey(2)),1:\(testKey(1))", database: database)
        await after.publish([Make.tier("u-ana", .trial, .pro, at: ms("2026-09-30"))])
        #expect(lines(try await after.report(.trialConversion, "2026-09-01", "2026-09-30")) == [Line("2026-W39", 1, 1, 10_000), Line("", 1, 1, 10_000)])
    }

    @Test("with no key configured a key is generated once, kept in the database and used again after a restart")
    func generatedKey() async throws {
        let database = try AnalyticsFixture.newDatabase()
        let first = try AnalyticsFixture(keys: nil, database: database)
        _ = try await first.service.record(Make.client("c1", "u-ana", .appOpened))
        #expect(try first.count("generated_key") == 1)
        let second = try AnalyticsFixture(keys: nil, database: database)
        #expect(try second.count("generated_key") == 1)
        _ = try await second.service.setOptOut(optOut("u-ana", true))
        // The same pseudonym: the opt-out made under the restarted service finds the first one's row.
        let rows = try await database.writer.read { db in try String.fetchAll(db, sql: "SELECT pseudonym FROM client_event UNION ALL SELECT pseudonym FROM opt_out") }
        #expect(rows.count == 2 && rows[0] == rows[1] && rows[0].hasPrefix("p0:"))
        // Configuring keys later keeps the generated key for finding old rows.
        let configured = try AnalyticsFixture(keys: "1:" + testKey(1), database: database)
        #expect(try await configured.service.deleteUserData(deleteRequest("u-ana")).eventsDeleted == 1)
    }

    @Test("analytics.requirePseudonymKey refuses to start without keys, naming analytics.pseudonymKeys")
    func requiredKey() throws {
        let refused = #expect(throws: AnalyticsSettingsError.self) {
            try AnalyticsFixture(keys: nil, settings: ["requirePseudonymKey": "true"])
        }
        #expect(refused?.key == "analytics.pseudonymKeys")
        _ = try AnalyticsFixture(keys: "1:" + testKey(1), settings: ["requirePseudonymKey": "true"])
    }

    @Test("bad pseudonym keys are refused naming the key, without echoing the secret",
          arguments: ["1", "x:\(testKey(1))", "0:\(testKey(1))", "1:not base64!", "1:\(Data(repeating: 1, count: 16).base64EncodedString())",
                      "1:\(testKey(1)),1:\(testKey(2))"])
    func badKeys(text: String) throws {
        let refused = #expect(throws: AnalyticsSettingsError.self) { try AnalyticsSettings(reader: analyticsReader(["pseudonymKeys": text])) }
        #expect(refused?.key == "analytics.pseudonymKeys")
        #expect(refused.map { !$0.message.contains(testKey(1)) } ?? false)
    }

    @Test("other bad settings are refused naming their key")
    func badSettings() {
        let flag = #expect(throws: AnalyticsSettingsError.self) { try AnalyticsSettings(reader: analyticsReader(["requirePseudonymKey": "maybe"])) }
        #expect(flag?.key == "analytics.requirePseudonymKey")
        let interval = #expect(throws: AnalyticsSettingsError.self) { try AnalyticsSettings(reader: analyticsReader(["retentionIntervalSeconds": "0"])) }
        #expect(interval?.key == "analytics.retentionIntervalSeconds")
    }
}

func optOut(_ user: String, _ out: Bool) -> SetAnalyticsOptOutRequest {
    var request = SetAnalyticsOptOutRequest()
    request.userID = user
    request.optOut = out
    return request
}

func deleteRequest(_ user: String) -> DeleteUserDataRequest {
    var request = DeleteUserDataRequest()
    request.userID = user
    return request
}
