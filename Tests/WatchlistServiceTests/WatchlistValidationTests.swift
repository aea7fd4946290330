import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing
@testable import SubscriptionService
@testable import WatchlistService

@Suite("Watchlist bad input")
struct WatchlistValidationTests {
    /// A bad create, the code it must be refused with, and the field the message must name.
    struct Case: Sendable, CustomStringConvertible {
        let description: String
        let code: String
        let field: String
        let adjust: @Sendable (inout CreateWatchlistRequest) -> Void
    }

    static let cases: [Case] = [
        Case(description: "unknown airport", code: "unknown-airport", field: "destination") { $0.destination = "QQQ" },
        Case(description: "malformed airport", code: "invalid-field", field: "origin") { $0.origin = "J1" },
        Case(description: "origin equals destination", code: "invalid-field", field: "destination") { $0.destination = "JFK" },
        Case(description: "destination in the origin's city", code: "invalid-field", field: "destination") { $0.destination = "LGA" },
        Case(description: "destination the origin's metro", code: "invalid-field", field: "destination") { $0.destination = "NYC" },
        Case(description: "no dates", code: "invalid-field", field: "dates") { $0.clearDates() },
        Case(description: "trip length reversed", code: "invalid-field", field: "dates.flexible") {
            $0.dates.flexible.minTripDays = 14
            $0.dates.flexible.maxTripDays = 7
        },
        Case(description: "trip length too long", code: "invalid-field", field: "dates.flexible") { $0.dates.flexible.maxTripDays = 61 },
        Case(description: "fixed dates in the past", code: "invalid-field", field: "dates.fixed.departure_date") {
            $0.dates.fixed.departureDate = CalendarDate(year: 2026, month: 9, day: 20)!.message  // safe: a real date
        },
        Case(description: "fixed dates reversed", code: "invalid-field", field: "dates.fixed.return_date") {
            $0.dates.fixed.departureDate = CalendarDate(year: 2026, month: 12, day: 10)!.message  // safe: a real date
            $0.dates.fixed.returnDate = CalendarDate(year: 2026, month: 12, day: 1)!.message  // safe: a real date
        },
        Case(description: "fixed return more than 365 days ahead", code: "invalid-field", field: "dates.fixed.return_date") {
            $0.dates.fixed.departureDate = CalendarDate(year: 2026, month: 12, day: 10)!.message  // safe: a real date
            $0.dates.fixed.returnDate = CalendarDate(year: 9999, month: 12, day: 31)!.message  // safe: a real date
        },
        Case(description: "impossible calendar date", code: "invalid-field", field: "dates.fixed.departure_date") {
            $0.dates.fixed.departureDate.year = 2026
            $0.dates.fixed.departureDate.month = 2
            $0.dates.fixed.departureDate.day = 30
        },
        Case(description: "threshold zero", code: "invalid-field", field: "price_threshold") { $0.priceThreshold = usd(0) },
        Case(description: "threshold negative", code: "invalid-field", field: "price_threshold") { $0.priceThreshold = usd(-100) },
        Case(description: "threshold in an unknown currency", code: "invalid-field", field: "price_threshold.currency") {
            $0.priceThreshold.currency = "XYZ"
            $0.priceThreshold.minorUnits = 45_000
        },
        Case(description: "unknown cabin", code: "invalid-field", field: "cabin") { $0.cabin = .UNRECOGNIZED(9) },
        Case(description: "unknown user", code: "unknown-user", field: "user_id") { $0.userID = "u-nobody" },
    ]

    @Test("each bad create is refused with a named error naming the field, and nothing is written", arguments: cases)
    func badCreate(_ badCase: Case) async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        try await fixture.running {
            let user = try await fixture.user()
            var request = addRequest(user)
            badCase.adjust(&request)
            do throws(WatchlistError) {
                _ = try await fixture.watchlists.create(request)
                Issue.record("\(badCase) was accepted")
            } catch {
                #expect(error.code == badCase.code, "\(badCase): \(error)")
                #expect(error.message.hasPrefix(badCase.field) || error.field == badCase.field, "\(badCase): \(error.message)")
            }
            #expect(try fixture.rows(user).isEmpty && fixture.rows("u-nobody").isEmpty)
        }
    }

    @Test("a mute other than 7 or 30 days is refused naming mute_days; 7 mutes for 7 days; 0 unmutes")
    func mute() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        try await fixture.running {
            let user = try await fixture.user()
            let id = try await fixture.watchlists.create(addRequest(user)).watchlist.watchlistID
            var update = UpdateWatchlistRequest()
            update.watchlistID = id
            update.userID = user
            update.muteDays = 14
            do throws(WatchlistError) {
                _ = try await fixture.watchlists.update(update)
                Issue.record("a 14-day mute was accepted")
            } catch {
                #expect(error.code == "invalid-field" && error.field == "mute_days")
            }
            update.muteDays = 7
            let muted = try await fixture.watchlists.update(update).watchlist
            #expect(muted.muteUntilUnixMs == WatchlistService.unixMs(fixture.clock.now()) + 7 * 86_400_000)
            update.muteDays = 0
            #expect(try await fixture.watchlists.update(update).watchlist.muteUntilUnixMs == 0)
        }
    }

    @Test("listing an unknown user's watchlists is unknown-user, as every other request; a known user without any gets an empty list with their limit")
    func listUnknownUser() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        try await fixture.running {
            let user = try await fixture.user(tier: .free)
            var request = ListWatchlistsRequest()
            request.userID = user
            let empty = try await fixture.watchlists.list(request)
            #expect(empty.watchlists.isEmpty && empty.activeLimit == 5, "\(empty)")
            request.userID = "u-nobody"
            do throws(WatchlistError) {
                _ = try await fixture.watchlists.list(request)
                Issue.record("an unknown user's list was answered")
            } catch {
                #expect(error.code == "unknown-user" && error.field == "user_id", "\(error)")
            }
        }
    }

    @Test("an update that moves one end into the other's city is refused naming destination, and changes nothing")
    func updateIntoOneCity() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        try await fixture.running {
            let user = try await fixture.user()
            let created = try await fixture.watchlists.create(addRequest(user)).watchlist
            for (origin, destination) in [(nil, "LGA"), ("LHR", "LGW"), ("LHR", "LON")] as [(String?, String)] {
                var update = UpdateWatchlistRequest()
                update.watchlistID = created.watchlistID
                update.userID = user
                if let origin { update.origin = origin }
                update.destination = destination
                do throws(WatchlistError) {
                    _ = try await fixture.watchlists.update(update)
                    Issue.record("\(origin ?? created.origin)-\(destination) was accepted")
                } catch {
                    #expect(error.code == "invalid-field" && error.field == "destination", "\(error)")
                    #expect(error.message.contains("is in the same city as the origin"), "\(error.message)")
                }
            }
            var moveOrigin = UpdateWatchlistRequest()
            moveOrigin.watchlistID = created.watchlistID
            moveOrigin.userID = user
            moveOrigin.origin = "LGA"  // still New York, and NRT is not: a route
            let moved = try await fixture.watchlists.update(moveOrigin).watchlist
            #expect(moved.origin == "LGA" && moved.destination == created.destination)
        }
    }

    @Test("a threshold in another currency than the origin's fares is accepted when the exchange rates convert between them, and refused (unsupported-currency) at creation and update when they cannot (issue #60; before conversion every other currency was refused)")
    func thresholdCurrency() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        fixture.search.pricingCurrencies.set(["JFK": "USD", "LGA": "USD", "LHR": "GBP", "DEL": "INR"])
        try await fixture.running {
            let user = try await fixture.user()
            func threshold(_ currency: String) -> Money { Money(minorUnits: 45_000, currency: currency) }
            func refused(_ body: () async throws(WatchlistError) -> Void, _ given: String, _ pricedIn: String) async {
                do throws(WatchlistError) {
                    try await body()
                    Issue.record("accepted a threshold in \(given), which the rates cannot convert \(pricedIn) into")
                } catch {
                    #expect(error.code == "unsupported-currency" && error.field == "price_threshold.currency", "\(error)")
                    #expect(error.message.contains("priced in \(pricedIn)") && error.message.contains("into \(given)"), "\(error.message)")
                }
            }
            // The rates know USD and EUR: a EUR threshold on New York's USD fares is compared converted.
            let euros = try await fixture.watchlists.create(addRequest(user) { $0.priceThreshold = threshold("eur") }).watchlist
            #expect(euros.priceThreshold.currency == "EUR")
            // KWD is an ISO 4217 currency the ECB does not publish.
            await refused({ () async throws(WatchlistError) in _ = try await fixture.watchlists.create(addRequest(user, "JFK", "LHR") { $0.priceThreshold = threshold("KWD") }) }, "KWD", "USD")
            var update = UpdateWatchlistRequest()
            update.watchlistID = euros.watchlistID
            update.userID = user
            update.priceThreshold = threshold("GBP")
            #expect(try await fixture.watchlists.update(update).watchlist.priceThreshold.currency == "GBP")
            update.priceThreshold = threshold("KWD")
            await refused({ () async throws(WatchlistError) in _ = try await fixture.watchlists.update(update) }, "KWD", "USD")
            // Moving the origin to Delhi keeps the GBP threshold, which Delhi's INR fares cannot be converted into here.
            var move = UpdateWatchlistRequest()
            move.watchlistID = euros.watchlistID
            move.userID = user
            move.origin = "DEL"
            await refused({ () async throws(WatchlistError) in _ = try await fixture.watchlists.update(move) }, "GBP", "INR")
            move.origin = "LHR"
            #expect(try await fixture.watchlists.update(move).watchlist.origin == "LHR")
            // Where search does not say (an older search), nothing is refused.
            #expect(try await fixture.watchlists.create(addRequest(user, "LIS", "OPO") { $0.priceThreshold = threshold("JPY") }).watchlist.priceThreshold.currency == "JPY")
        }
    }

    @Test("another user's watchlist is not-found for get, update, delete and check")
    func ownership() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        try await fixture.running {
            let owner = try await fixture.user()
            let other = try await fixture.user("bo@example.com")
            let id = try await fixture.watchlists.create(addRequest(owner)).watchlist.watchlistID
            var get = GetWatchlistRequest()
            get.watchlistID = id
            get.userID = other
            await #expect(throws: WatchlistError.notFound(id)) { try await fixture.watchlists.get(get) }
            var delete = DeleteWatchlistRequest()
            delete.watchlistID = id
            delete.userID = other
            await #expect(throws: WatchlistError.notFound(id)) { try await fixture.watchlists.delete(delete) }
            var check = CheckWatchlistNowRequest()
            check.watchlistID = id
            check.userID = other
            await #expect(throws: WatchlistError.notFound(id)) { try await fixture.watchlists.checkNow(check) }
            #expect(try fixture.rows(owner).count == 1)
        }
    }
}
