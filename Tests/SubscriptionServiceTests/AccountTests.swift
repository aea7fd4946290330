import FareLensBus
import FareLensMessages
import FareLensStore
import FareLensTesting
import Foundation
import Testing
@testable import SubscriptionService

@Suite("Accounts")
struct AccountTests {
    @Test("a new user starts a 14-day trial with Pro's entitlements, and TierChanged and UserPreferencesChanged are published")
    func createStartsTrial() async throws {
        let fixture = try SubscriptionFixture()
        let tierChanges = fixture.bus.subscribe(TierChanged.self)
        let preferences = fixture.bus.subscribe(UserPreferencesChanged.self)
        // The events are awaited while the service runs: its outbox publishes them after the commit, and a
        // service stopped as soon as createUser answered could stop before publishing (1 run in 2 gave up).
        let (response, change, kept) = try await fixture.running {
            let response = try await fixture.service.createUser(SubscriptionFixture.create("  Ana@Example.COM ") {
                $0.homeAirport = "lis"
                $0.preferredAirports = preferred(("LIS", 0.6), ("OPO", 0.3), ("LHR", 0.1))
            })
            return (response, try await firstEvents(1, of: tierChanges).first, try await firstEvents(1, of: preferences).first)
        }
        let user = response.user
        #expect(user.userID.hasPrefix("u-") && user.userID.count == 18)
        #expect(user.email == "ana@example.com")
        #expect(user.homeAirport == "LIS")
        #expect(user.tier == .trial)
        #expect(user.trialEndsAtUnixMs - user.createdAtUnixMs == 14 * 86_400_000)
        #expect(user.quietHours.start.hour == 22 && user.quietHours.end.hour == 7 && !user.quietHours.disabled)
        #expect(response.entitlements == TierEntitlements.of(.pro).with(tier: .trial))
        let tierChange = try #require(change)
        #expect(tierChange.userID == user.userID && tierChange.previous == .unspecified && tierChange.current == .trial && tierChange.cause == .trialStarted)
        #expect(kept?.preferredAirports.map(\.code) == ["LIS", "OPO", "LHR"])
        // What a service keeping users needs travels with it (alerts: issue #64): the tier and its daily cap.
        #expect(kept?.tier == .trial && kept?.entitlements.immediateAlertsPerDay == 6 && kept?.currency == "")
    }

    @Test("UserPreferencesChanged carries the user's currency and their tier as they stand: a currency change and an operator's downgrade each publish one")
    func preferencesCarryCurrencyAndTier() async throws {
        let fixture = try SubscriptionFixture()
        let preferences = fixture.bus.subscribe(UserPreferencesChanged.self)
        let events = try await fixture.running {
            let user = try await fixture.service.createUser(SubscriptionFixture.create("bo@example.com") {
                $0.preferredAirports = preferred(("LIS", 0.5), ("OPO", 0.5))
            }).user
            var update = UpdateUserRequest()
            (update.userID, update.currency) = (user.userID, "EUR")
            _ = try await fixture.service.updateUser(update)
            // Free allows one preferred airport: the downgrade trims OPO and publishes the preferences kept.
            var free = SetTierRequest()
            (free.userID, free.tier) = (user.userID, .free)
            _ = try await fixture.service.setTier(free)
            return try await firstEvents(3, of: preferences)
        }
        #expect(events.map(\.tier) == [.trial, .trial, .free])
        #expect(events.map(\.entitlements.immediateAlertsPerDay) == [6, 6, 3])
        #expect(events.map(\.currency) == ["", "EUR", "EUR"])
        #expect(events.last?.preferredAirports.map(\.code) == ["LIS"])
    }

    @Test("entitlements come from one table: Free 5/3/20/1/ads, trial and Pro unlimited/6/all/3/no ads")
    func entitlementTable() {
        let free = TierEntitlements.of(.free)
        #expect(free.activeWatchlists == 5 && free.immediateAlertsPerDay == 3 && free.visibleDeals == 20 && free.preferredAirports == 1 && free.ads)
        #expect(free.flexibleDatePairs == 8)
        for tier in [Tier.trial, .pro] {
            let paid = TierEntitlements.of(tier)
            #expect(!paid.hasActiveWatchlists && paid.immediateAlertsPerDay == 6 && !paid.hasVisibleDeals && paid.preferredAirports == 3 && !paid.ads)
            #expect(paid.flexibleDatePairs == 60)
        }
    }

    @Test("bad input is refused with a named error naming the field, and nothing is written", arguments: [
        ("not-an-email", "Europe/Lisbon", "invalid-field", "email"),
        ("a@b", "Europe/Lisbon", "invalid-field", "email"),
        ("a\u{1B}[31mred@example.com", "Europe/Lisbon", "invalid-field", "email"),
        ("a\u{01}b@example.com", "Europe/Lisbon", "invalid-field", "email"),
        ("ab@example.com\u{7F}", "Europe/Lisbon", "invalid-field", "email"),
        ("a@example.com", "Mars/Olympus", "invalid-field", "time_zone"),
        ("a@example.com", "", "invalid-field", "time_zone"),
        ("a@example.com", "EST", "invalid-field", "time_zone"),
    ])
    func badAccountFields(email: String, timeZone: String, code: String, field: String) async throws {
        let fixture = try SubscriptionFixture()
        let error = await #expect(throws: SubscriptionError.self) {
            try await fixture.service.createUser(SubscriptionFixture.create(email, timeZone: timeZone))
        }
        #expect(error?.code == code)
        #expect(error?.field == field)
        #expect(try fixture.userCount() == 0)
    }

    @Test("airports: an unknown code, a fourth preferred airport, weights not summing to 1, a repeated code and bad quiet hours are each refused")
    func badAirportsAndHours() async throws {
        let fixture = try SubscriptionFixture()
        let cases: [(CreateUserRequest, String, String)] = [
            (SubscriptionFixture.create { $0.homeAirport = "XYZ" }, "unknown-airport", "home_airport"),
            (SubscriptionFixture.create { $0.homeAirport = "LISBON" }, "invalid-field", "home_airport"),
            (SubscriptionFixture.create { $0.preferredAirports = preferred(("LIS", 0.25), ("OPO", 0.25), ("LHR", 0.25), ("JFK", 0.25)) }, "airport-limit", "preferred_airports"),
            (SubscriptionFixture.create { $0.preferredAirports = preferred(("LIS", 0.5), ("OPO", 0.3)) }, "invalid-field", "preferred_airports"),
            (SubscriptionFixture.create { $0.preferredAirports = preferred(("LIS", 0.5), ("LIS", 0.5)) }, "invalid-field", "preferred_airports[1]"),
            (SubscriptionFixture.create { $0.preferredAirports = preferred(("LIS", 1.5)) }, "invalid-field", "preferred_airports[0].weight"),
            (SubscriptionFixture.create { $0.quietHours.start.hour = 24 }, "invalid-field", "quiet_hours.start"),
        ]
        for (request, code, field) in cases {
            let error = await #expect(throws: SubscriptionError.self) { try await fixture.service.createUser(request) }
            #expect(error?.code == code, "\(request)")
            #expect(error?.field == field, "\(request)")
        }
        #expect(try fixture.userCount() == 0)
    }

    @Test("IANA zones the tz database knows are accepted, including ones Linux's known-identifier list lacks", arguments: ["Asia/Kolkata", "America/New_York", "Australia/Lord_Howe", "UTC"])
    func timeZones(zone: String) throws {
        #expect(try UserValidator.timeZone(zone) == zone)
    }

    @Test("an email can belong to one user only, whatever its case")
    func emailTaken() async throws {
        let fixture = try SubscriptionFixture()
        _ = try await fixture.service.createUser(SubscriptionFixture.create("ana@example.com"))
        let error = await #expect(throws: SubscriptionError.self) { try await fixture.service.createUser(SubscriptionFixture.create("ANA@example.com")) }
        #expect(error?.code == "email-taken")
        #expect(try fixture.userCount() == 1)
        // Only the first user's events wait in the event outbox (not running): the refused create wrote none.
        #expect(try fixture.database.waitingEvents(limit: 10).map(\.typeName) == [TierChanged.wireTypeName, UserPreferencesChanged.wireTypeName])
    }

    @Test("a user is found by id or by email; an unknown one is unknown-user")
    func getUser() async throws {
        let fixture = try SubscriptionFixture()
        let created = try await fixture.service.createUser(SubscriptionFixture.create()).user
        var byID = GetUserRequest()
        byID.userID = created.userID
        #expect(try await fixture.service.user(byID).user == created)
        var byEmail = GetUserRequest()
        byEmail.email = " ANA@example.com"
        #expect(try await fixture.service.user(byEmail).user.userID == created.userID)
        var unknown = GetUserRequest()
        unknown.userID = "u-nobody"
        let error = await #expect(throws: SubscriptionError.self) { try await fixture.service.user(unknown) }
        #expect(error?.code == "unknown-user")
    }

    @Test("an update changes only the fields it sets; a bad one changes nothing")
    func updateUser() async throws {
        let fixture = try SubscriptionFixture()
        let created = try await fixture.service.createUser(SubscriptionFixture.create { $0.homeAirport = "LIS" }).user
        _ = try await fixture.service.createUser(SubscriptionFixture.create("bo@example.com"))
        var update = UpdateUserRequest()
        update.userID = created.userID
        update.timeZone = "America/New_York"
        update.preferredAirports.airports = preferred(("JFK", 0.7), ("EWR", 0.3))
        let updated = try await fixture.service.updateUser(update).user
        #expect(updated.timeZone == "America/New_York" && updated.homeAirport == "LIS" && updated.email == created.email)
        #expect(updated.preferredAirports.map(\.code) == ["JFK", "EWR"])

        var clash = UpdateUserRequest()
        clash.userID = created.userID
        clash.timeZone = "Asia/Kolkata"
        clash.email = "bo@example.com"
        let error = await #expect(throws: SubscriptionError.self) { try await fixture.service.updateUser(clash) }
        #expect(error?.code == "email-taken")
        var get = GetUserRequest()
        get.userID = created.userID
        #expect(try await fixture.service.user(get).user.timeZone == "America/New_York", "nothing half-written")
    }

    @Test("the display currency (issue #60): an ISO 4217 code is kept upper-cased, \"\" clears it, anything else is invalid-field naming currency and changes nothing")
    func displayCurrency() async throws {
        let fixture = try SubscriptionFixture()
        let created = try await fixture.service.createUser(SubscriptionFixture.create()).user
        #expect(created.currency.isEmpty)
        var update = UpdateUserRequest()
        update.userID = created.userID
        update.currency = "eur"
        #expect(try await fixture.service.updateUser(update).user.currency == "EUR")
        update.currency = "EURO"
        let error = await #expect(throws: SubscriptionError.self) { try await fixture.service.updateUser(update) }
        #expect(error?.code == "invalid-field" && error?.field == "currency")
        var get = GetUserRequest()
        get.userID = created.userID
        #expect(try await fixture.service.user(get).user.currency == "EUR")
        update.currency = ""
        #expect(try await fixture.service.updateUser(update).user.currency.isEmpty)
    }

    @Test("GetUsers answers many users in one request over the bus: known ones in id order with their tier's entitlements, unknown ids listed, repeats once; too many ids or an empty one is invalid-field")
    func manyUsersAtOnce() async throws {
        let fixture = try SubscriptionFixture()
        try fixture.service.register(on: fixture.bus)
        let ana = try await fixture.service.createUser(SubscriptionFixture.create("ana@example.com")).user.userID
        let bo = try await fixture.service.createUser(SubscriptionFixture.create("bo@example.com", timeZone: "Asia/Kolkata")).user.userID
        var set = SetTierRequest()
        set.userID = bo
        set.tier = .free
        _ = try await fixture.service.setTier(set)
        var request = GetUsersRequest()
        request.userIds = [bo, "nobody", ana, bo]
        let answer = try await fixture.bus.request(request)
        #expect(answer.users.map(\.user.userID) == [ana, bo].sorted())
        let byID = Dictionary(uniqueKeysWithValues: answer.users.map { ($0.user.userID, $0) })
        #expect(byID[bo]?.user.timeZone == "Asia/Kolkata" && byID[bo]?.entitlements.immediateAlertsPerDay == 3)
        #expect(byID[ana]?.user.tier == .trial && byID[ana]?.entitlements.immediateAlertsPerDay == 6)
        #expect(answer.unknownUserIds == ["nobody"])
        #expect(try await fixture.bus.request(GetUsersRequest()).users.isEmpty)

        for (ids, reason) in [(Array(repeating: ana, count: 1_001), "at most 1000 ids"), ([ana, ""], "an id is empty")] {
            var bad = GetUsersRequest()
            bad.userIds = ids
            let error = await #expect(throws: BusError.self) { try await fixture.bus.request(bad) }
            #expect(error?.kind == .remote && error?.remoteCode == "invalid-field")
            #expect(error?.message.contains(reason) == true, "\(String(describing: error))")
        }
    }
}

extension Entitlements {
    func with(tier: Tier) -> Entitlements {
        var copy = self
        copy.tier = tier
        return copy
    }

    @Test("airport codes asked of a search that is not there: airports-unavailable, keeping the bus's service-unavailable as its cause (issue #64)")
    func airportsAwayKeepTheirCause() async throws {
        let checker = BusAirportChecker(bus: MessageBus())
        do {
            _ = try await checker.isKnown("JFK")
            Issue.record("answered with no directory on the bus")
        } catch {
            #expect(error.code == "airports-unavailable", "\(error)")
            let cause = try #require(error.underlying as? BusError, "the cause, not its text: \(String(describing: error.underlying))")
            #expect(cause.kind == .serviceUnavailable)
        }
    }
}
