import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing
@testable import SubscriptionService

@Suite("Operator requests")
struct OperatorTests {
    @Test("setTier Pro (annual) on a trial user publishes TierChanged(SET_BY_OPERATOR); the Pro has no paid period and endPaidPeriods never ends it")
    func operatorPro() async throws {
        let fixture = try SubscriptionFixture()
        let all = fixture.bus.subscribeAll()
        let user = try await fixture.service.createUser(SubscriptionFixture.create()).user
        let response = try await fixture.service.setTier(setTier(user.userID, .pro, product: .annual))
        #expect(!response.unchanged)
        let pro = response.user
        #expect(pro.tier == .pro && pro.product == .annual && pro.setByOperator && pro.paidUntilUnixMs == 0 && !pro.autoRenew)
        #expect(try await fixture.service.user(get(user.userID)).user == pro)

        fixture.clock.advance(by: 400 * 86_400)
        #expect(await fixture.service.endPaidPeriods() == 0)
        #expect(await fixture.service.advanceTrials() == 0, "the trial it replaced does not expire later")
        let later = try await fixture.service.user(get(user.userID))
        #expect(later.user.tier == .pro && later.entitlements == TierEntitlements.of(.pro))

        let events = try await fixture.eventsBeforeMarker(all)
        let changes = events.tierChanges(of: user.userID)
        #expect(changes.map(\.cause) == [.trialStarted, .setByOperator])
        let change = try #require(changes.last)
        #expect(change.previous == .trial && change.current == .pro && change.transactionID.isEmpty)
        #expect(change.entitlements == TierEntitlements.of(.pro))
    }

    @Test("setTier to the tier the user already has answers unchanged and publishes nothing")
    func sameTierUnchanged() async throws {
        let fixture = try SubscriptionFixture()
        let all = fixture.bus.subscribeAll()
        let user = try await fixture.service.createUser(SubscriptionFixture.create()).user
        fixture.clock.advance(by: 86_400)
        let trial = try await fixture.service.setTier(setTier(user.userID, .trial))
        #expect(trial.unchanged)
        #expect(trial.user == user, "the running trial is not restarted")

        _ = try await fixture.service.setTier(setTier(user.userID, .pro, product: .monthly))
        let again = try await fixture.service.setTier(setTier(user.userID, .pro, product: .monthly))
        #expect(again.unchanged)
        #expect(again.user.tier == .pro && again.user.product == .monthly)

        let events = try await fixture.eventsBeforeMarker(all)
        #expect(events.tierChanges(of: user.userID).map(\.cause) == [.trialStarted, .setByOperator])
    }

    @Test("setTier trial starts a new 14-day trial from now, which runs its course again (reminder, then Free)")
    func operatorTrialRestarts() async throws {
        let fixture = try SubscriptionFixture()
        let all = fixture.bus.subscribeAll()
        let user = try await fixture.service.createUser(SubscriptionFixture.create()).user
        fixture.clock.advance(by: 20 * 86_400)
        #expect(await fixture.service.advanceTrials() == 1)
        #expect(try await fixture.service.user(get(user.userID)).user.tier == .free)

        let restarted = try await fixture.service.setTier(setTier(user.userID, .trial))
        #expect(!restarted.unchanged)
        #expect(restarted.user.tier == .trial && restarted.user.setByOperator)
        #expect(restarted.user.trialEndsAtUnixMs == fixture.nowMs() + 14 * 86_400_000)

        fixture.clock.advance(by: 13 * 86_400 - 1)
        #expect(await fixture.service.advanceTrials() == 0)
        fixture.clock.advance(by: 1)
        #expect(await fixture.service.advanceTrials() == 1, "the reminder")
        fixture.clock.advance(by: 86_400)
        #expect(await fixture.service.advanceTrials() == 1, "the expiry")
        #expect(try await fixture.service.user(get(user.userID)).user.tier == .free)

        let events = try await fixture.eventsBeforeMarker(all)
        #expect(events.compactMap { $0 as? TrialEnding }.filter { $0.userID == user.userID }.map(\.stage) == [.expired, .oneDayLeft, .expired])
        let changes = events.tierChanges(of: user.userID)
        #expect(changes.map(\.cause) == [.trialStarted, .trialExpired, .setByOperator, .trialExpired])
        #expect(changes.map(\.current) == [.trial, .free, .trial, .free])
    }

    @Test("setTier refuses an unspecified tier (invalid-field tier), Pro without a product (invalid-field product) and an unknown user (unknown-user); nothing changes")
    func badSetTier() async throws {
        let fixture = try SubscriptionFixture()
        let user = try await fixture.service.createUser(SubscriptionFixture.create()).user
        let cases: [(String, SetTierRequest, String, String?)] = [
            ("tier unspecified", setTier(user.userID, .unspecified), "invalid-field", "tier"),
            ("Pro without product", setTier(user.userID, .pro), "invalid-field", "product"),
            ("Free with a product", setTier(user.userID, .free, product: .monthly), "invalid-field", "product"),
            ("unknown user", setTier("u-nobody", .free), "unknown-user", nil),
        ]
        for (what, request, code, field) in cases {
            let error = await #expect(throws: SubscriptionError.self, "\(what)") { try await fixture.service.setTier(request) }
            #expect(error?.code == code, "\(what)")
            #expect(error?.field == field, "\(what)")
        }
        await #expect(throws: SubscriptionError.unknownUser("u-nobody")) { try await fixture.service.setTier(setTier("u-nobody", .free)) }
        #expect(try await fixture.service.user(get(user.userID)).user == user)
    }

    @Test("listUsers pages through every user in id order: 5 users by 2 are pages of 2, 2 and 1, the last without a next token; page_size over 1,000 and a token that did not come from a page are refused")
    func listUsersPages() async throws {
        let fixture = try SubscriptionFixture()
        var created: [String] = []
        for index in 1...5 {
            created.append(try await fixture.service.createUser(SubscriptionFixture.create("user\(index)@example.com")).user.userID)
        }
        var pages: [ListUsersResponse] = []
        var request = ListUsersRequest()
        request.pageSize = 2
        repeat {
            let page = try await fixture.service.listUsers(request)
            pages.append(page)
            request.pageToken = page.nextPageToken
        } while !request.pageToken.isEmpty && pages.count < 10
        #expect(pages.map(\.users.count) == [2, 2, 1])
        #expect(pages.map(\.total) == [5, 5, 5])
        #expect(pages.map { $0.nextPageToken.isEmpty } == [false, false, true])
        let ids = pages.flatMap(\.users).map(\.userID)
        #expect(ids == created.sorted(), "every user once, ascending by id")
        #expect(Set(ids).count == 5)

        var everyone = ListUsersRequest()
        everyone.pageSize = 0
        #expect(try await fixture.service.listUsers(everyone).users.map(\.userID) == created.sorted(), "0 means the default page")

        var tooBig = ListUsersRequest()
        tooBig.pageSize = 1_001
        let error = await #expect(throws: SubscriptionError.self) { try await fixture.service.listUsers(tooBig) }
        #expect(error?.code == "invalid-field" && error?.field == "page_size")

        var garbage = ListUsersRequest()
        garbage.pageToken = "garbage"
        let refused = await #expect(throws: SubscriptionError.self) { try await fixture.service.listUsers(garbage) }
        #expect(refused?.code == "invalid-field" && refused?.field == "page_token")
        #expect(refused?.message == "page_token: 'garbage' is not a next_page_token from an earlier page")
    }

    @Test("deleteUser removes the user and their ledger and publishes UserDeleted; deleting again is unknown-user")
    func deleteUser() async throws {
        let fixture = try SubscriptionFixture()
        let all = fixture.bus.subscribeAll()
        let user = try await fixture.service.createUser(SubscriptionFixture.create()).user
        let other = try await fixture.service.createUser(SubscriptionFixture.create("bo@example.com")).user
        let now = fixture.nowMs()
        for (id, tx) in [(user.userID, "tx-1"), (other.userID, "tx-2")] {
            var start = ApplyPurchaseNotificationRequest()
            start.transactionID = tx
            start.userID = id
            start.kind = .start
            start.product = .monthly
            start.occurredAtUnixMs = now
            start.expiresAtUnixMs = now + 30 * 86_400_000
            _ = try await fixture.service.applyPurchase(start)
        }
        #expect(try fixture.ledgerCount(userID: user.userID) == 1)

        fixture.clock.advance(by: 60)
        var delete = DeleteUserRequest()
        delete.userID = user.userID
        #expect(try await fixture.service.deleteUser(delete).userID == user.userID)
        let error = await #expect(throws: SubscriptionError.self) { try await fixture.service.user(get(user.userID)) }
        #expect(error?.code == "unknown-user")
        #expect(try fixture.ledgerCount(userID: user.userID) == 0, "their ledger is gone")
        #expect(try fixture.ledgerCount(userID: other.userID) == 1, "another user's ledger stays")
        #expect(try await fixture.service.user(get(other.userID)).user.tier == .pro)

        await #expect(throws: SubscriptionError.unknownUser(user.userID)) { try await fixture.service.deleteUser(delete) }

        let events = try await fixture.eventsBeforeMarker(all)
        let deleted = events.compactMap { $0 as? UserDeleted }
        #expect(deleted.map(\.userID) == [user.userID], "published once, for the first delete only")
        #expect(deleted.first?.atUnixMs == now + 60_000)
    }

    @Test("preferredAirportUsers answers the users with that airport and its weight, paged in id order; a malformed code is invalid-field airport")
    func preferredAirportUsers() async throws {
        let fixture = try SubscriptionFixture()
        let both = try await fixture.service.createUser(SubscriptionFixture.create { $0.preferredAirports = preferred(("JFK", 0.6), ("LIS", 0.4)) }).user
        let lisbon = try await fixture.service.createUser(SubscriptionFixture.create("bo@example.com", timeZone: "America/New_York") {
            $0.preferredAirports = preferred(("LIS", 1.0))
        }).user
        _ = try await fixture.service.createUser(SubscriptionFixture.create("cy@example.com") { $0.preferredAirports = preferred(("OPO", 1.0)) })

        let lis = try await fixture.service.preferredAirportUsers(airportUsers("LIS"))
        let expected = [(both.userID, 0.4, "Europe/Lisbon"), (lisbon.userID, 1.0, "America/New_York")].sorted { $0.0 < $1.0 }
        #expect(lis.users.map(\.userID) == expected.map(\.0))
        #expect(lis.users.map(\.weight) == expected.map(\.1))
        #expect(lis.users.map(\.timeZone) == expected.map(\.2))
        #expect(lis.users.allSatisfy { $0.tier == .trial })
        #expect(lis.nextPageToken.isEmpty)

        let jfk = try await fixture.service.preferredAirportUsers(airportUsers("jfk"))
        #expect(jfk.users.map(\.userID) == [both.userID])
        #expect(jfk.users.map(\.weight) == [0.6])

        let first = try await fixture.service.preferredAirportUsers(airportUsers("LIS", pageSize: 1))
        #expect(first.users.map(\.userID) == [expected[0].0])
        #expect(!first.nextPageToken.isEmpty)
        let second = try await fixture.service.preferredAirportUsers(airportUsers("LIS", pageToken: first.nextPageToken, pageSize: 1))
        #expect(second.users.map(\.userID) == [expected[1].0])
        #expect(second.users.map(\.weight) == [expected[1].1])
        #expect(second.nextPageToken.isEmpty)

        for code in ["LISB", "L1S", "", "LI"] {
            let error = await #expect(throws: SubscriptionError.self, "'\(code)'") { try await fixture.service.preferredAirportUsers(airportUsers(code)) }
            #expect(error?.code == "invalid-field" && error?.field == "airport", "'\(code)'")
        }
    }

    // MARK: Helpers

    func setTier(_ userID: String, _ tier: Tier, product: SubscriptionProduct = .unspecified) -> SetTierRequest {
        var request = SetTierRequest()
        request.userID = userID
        request.tier = tier
        request.product = product
        return request
    }

    func get(_ userID: String) -> GetUserRequest {
        var request = GetUserRequest()
        request.userID = userID
        return request
    }

    func airportUsers(_ airport: String, pageToken: String = "", pageSize: Int32 = 0) -> PreferredAirportUsersRequest {
        var request = PreferredAirportUsersRequest()
        request.airport = airport
        request.pageToken = pageToken
        request.pageSize = pageSize
        return request
    }
}
