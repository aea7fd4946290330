import FareLensBus
import FareLensMessages
import FareLensStore
import FareLensTesting
import Foundation
import Testing
@testable import SubscriptionService
@testable import WatchlistService

@Suite("Scheduled checks in the user's local time")
struct WatchlistScheduleTests {
    /// The local hour and minute of `date` in `zone`.
    func local(_ date: Date, _ zone: String) throws -> (Int, Int) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: zone))
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return (parts.hour ?? -1, parts.minute ?? -1)
    }

    @Test("a Free user's watchlists are checked at 09:00 local plus their jitter, not a second earlier, and the next check is planned for the next day")
    func freeAtNine() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        // Not `running`: the service's own loop would race these calls for the due checks.
        try await withTimeLimit("the checks ran") {
            let user = try await fixture.user(tier: .free)
            fixture.search.setPrice("JFK-NRT", 70_000)
            _ = try await fixture.watchlists.create(addRequest(user))
            _ = try await fixture.watchlists.create(addRequest(user, "JFK", "LHR"))
            fixture.search.setPrice("JFK-LHR", 40_000)
            let owner = try #require(try fixture.owner(user))
            let due = WatchlistService.date(owner.nextCheckAtUnixMs)
            let jitter = CheckSchedule.jitter(forUser: user)
            let unjittered = due.addingTimeInterval(-Double(jitter))
            #expect(try local(unjittered, "America/New_York") == (9, 0))
            fixture.clock.advance(by: due.timeIntervalSince(fixture.clock.now()) - 1)
            #expect(await fixture.watchlists.runDueChecks() == 0)
            fixture.clock.advance(by: 1)
            #expect(await fixture.watchlists.runDueChecks() == 2)
            #expect(await fixture.watchlists.runDueChecks() == 0, "checked once per slot")
            let next = WatchlistService.date(try #require(try fixture.owner(user)).nextCheckAtUnixMs)
            #expect(next.timeIntervalSince(due) == 86_400, "Free: the next day's 09:00 (no DST change in September)")
            #expect(fixture.search.requests.get().allSatisfy { $0.purpose == .freeWatchlist })
        }
    }

    /// A user watching JFK→NRT (priced), with the clock moved to their next check: they are due.
    private func dueUser(in fixture: WatchlistFixture) async throws -> (String, OwnerRecord) {
        let user = try await fixture.user()
        fixture.search.setPrice("JFK-NRT", 70_000)
        _ = try await fixture.watchlists.create(addRequest(user))
        let owner = try #require(try fixture.owner(user))
        fixture.clock.advance(by: WatchlistService.date(owner.nextCheckAtUnixMs).timeIntervalSince(fixture.clock.now()))
        return (user, owner)
    }

    @Test("a check run in a cancelled task (the service stopping) asks search nothing and leaves the user due: the next run checks them")
    func stopLeavesUsersDue() async throws {
        // The service's own loop is not started (`running` would start it), so that only these calls check.
        let fixture = try WatchlistFixture(bus: MessageBus())
        try await withTimeLimit("the checks ran") {
            let (user, owner) = try await dueUser(in: fixture)
            let stopping = await Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return await fixture.watchlists.runDueChecks()
            }.value
            #expect(stopping == 0)
            #expect(fixture.search.requests.get().isEmpty)
            #expect(try fixture.owner(user)?.nextCheckAtUnixMs == owner.nextCheckAtUnixMs, "the stop skipped the user's check")
            #expect(await fixture.watchlists.runDueChecks() == 1)
        }
    }

    @Test("a check run cancelled while search answers (the service stopping) records nothing: the user stays due")
    func stopMidCheckLeavesUserDue() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        try await withTimeLimit("the checks ran") {
            let (user, owner) = try await dueUser(in: fixture)
            let gate = Gate()
            fixture.search.gates.update { $0["JFK-NRT"] = gate }
            let run = Task { await fixture.watchlists.runDueChecks() }
            try await waitUntil("search was asked") { gate.arrivals == 1 }
            run.cancel()
            // Search answers after the cancellation (an in-process request waits for its handler).
            gate.open()
            let checked = await run.value
            #expect(checked == 0)
            #expect(try fixture.owner(user)?.nextCheckAtUnixMs == owner.nextCheckAtUnixMs, "the stop skipped the user's check")
        }
    }

    @Test("a Pro user is checked at 09:00 and 18:00 local")
    func proTwiceADay() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        // Not `running`: the service's own loop would race these calls for the due checks.
        try await withTimeLimit("the checks ran") {
            let user = try await fixture.user(timeZone: "Asia/Kolkata", tier: .pro)
            fixture.search.setPrice("DEL-LHR", 50_000)
            _ = try await fixture.watchlists.create(addRequest(user, "DEL", "LHR"))
            var hours: [Int] = []
            for _ in 0 ..< 4 {
                let owner = try #require(try fixture.owner(user))
                let due = WatchlistService.date(owner.nextCheckAtUnixMs)
                hours.append(try local(due.addingTimeInterval(-Double(CheckSchedule.jitter(forUser: user))), "Asia/Kolkata").0)
                fixture.clock.advance(by: due.timeIntervalSince(fixture.clock.now()))
                #expect(await fixture.watchlists.runDueChecks() == 1)
            }
            #expect(hours == [9, 18, 9, 18] || hours == [18, 9, 18, 9])
        }
    }

    @Test("checks that fell due while the service was down run once on start, not once per missed slot")
    func missedChecksOnce() async throws {
        let bus = MessageBus()
        let fixture = try WatchlistFixture(bus: bus)
        let changes = bus.subscribe(PriceChanged.self)
        let user = try await withTimeLimit("set-up") {
            let user = try await fixture.user()
            fixture.search.setPrice("JFK-NRT", 70_000)
            _ = try await fixture.watchlists.create(addRequest(user))
            return user
        }
        // Three days (six Pro slots) pass with the service stopped.
        fixture.clock.advance(by: 3 * 86_400)
        try await fixture.running {
            // run() checks what is due as it starts.
            _ = try await firstEvents(1, of: changes)
            #expect(await fixture.watchlists.runDueChecks() == 0)
            #expect(fixture.search.requests.get().count == 1)
            let next = WatchlistService.date(try #require(try fixture.owner(user)).nextCheckAtUnixMs)
            #expect(next > fixture.clock.now() && next.timeIntervalSince(fixture.clock.now()) <= 12 * 3600 + 1800)
        }
    }

    @Test("a user who changes time zone is next checked at 09:00 or 18:00 in the new zone")
    func timeZoneChange() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        try await fixture.running {
            let user = try await fixture.user()
            _ = try await fixture.watchlists.create(addRequest(user))
            var update = UpdateUserRequest()
            update.userID = user
            update.timeZone = "Australia/Lord_Howe"
            _ = try await fixture.subscription.updateUser(update)
            try await waitUntil("the new time zone reached the watchlists") { (try? fixture.owner(user))??.timeZone == "Australia/Lord_Howe" }
            let owner = try #require(try fixture.owner(user))
            let unjittered = WatchlistService.date(owner.nextCheckAtUnixMs).addingTimeInterval(-Double(CheckSchedule.jitter(forUser: user)))
            let (hour, minute) = try local(unjittered, "Australia/Lord_Howe")
            #expect([9, 18].contains(hour) && minute == 0)
            #expect(unjittered > fixture.clock.now())
        }
    }

    @Test("on New York's November change day the 09:00 check is at 14:00Z, an hour later in UTC than the day before")
    func newYorkFallBack() async throws {
        // 2026-10-31T12:00:00Z: the morning before the change (EDT).
        let fixture = try WatchlistFixture(bus: MessageBus(), start: Date(timeIntervalSince1970: 1_793_448_000))
        // Not `running`: the service's own loop would race these calls for the due checks.
        try await withTimeLimit("the checks ran") {
            let user = try await fixture.user(tier: .free)
            fixture.search.setPrice("JFK-NRT", 70_000)
            _ = try await fixture.watchlists.create(addRequest(user))
            let jitter = Double(CheckSchedule.jitter(forUser: user))
            var checkedAt: [Date] = []
            for _ in 0 ..< 2 {
                let due = WatchlistService.date(try #require(try fixture.owner(user)).nextCheckAtUnixMs)
                fixture.clock.advance(by: due.timeIntervalSince(fixture.clock.now()))
                #expect(await fixture.watchlists.runDueChecks() == 1)
                checkedAt.append(due.addingTimeInterval(-jitter))
            }
            let formatter = ISO8601DateFormatter()
            #expect(checkedAt.map { formatter.string(from: $0) } == ["2026-10-31T13:00:00Z", "2026-11-01T14:00:00Z"])
        }
    }

    @Test("the day ahead counts two checks for each Pro or trial user and one for each Free user")
    func dayAhead() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        try await fixture.running {
            let pro = try await fixture.user()
            let free = try await fixture.user("bo@example.com", timeZone: "Asia/Kolkata", tier: .free)
            _ = try await fixture.watchlists.create(addRequest(pro))
            _ = try await fixture.watchlists.create(addRequest(free, "DEL", "LHR"))
            let day = try WatchlistPlanning.day(database: fixture.database, from: fixture.clock.now())
            #expect(day.users == 2 && day.checks == 3 && day.checksPerHour.reduce(0, +) == 3)
        }
    }
}

/// A scheduled check run records a user's checks and writes their events
/// into the event outbox in one transaction, after the user's last check,
/// so that alerts decides them in one batch and they compete for the user's
/// daily cap (docs/alerts.md, "Which candidates compete"), and a crash
/// part-way records and publishes nothing of the run.
@Suite struct CheckRunPublicationTests {
    @Test("a user's scheduled check run writes nothing until its last watchlist is priced, then every check and its events in check order")
    func eventsWrittenAfterTheLastCheck() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        // Not `running`: nothing publishes the outbox, so its rows show what the run has written.
        try await withTimeLimit("the check run") {
            let user = try await fixture.user(tier: .pro)
            fixture.search.setPrice("JFK-NRT", 70_000)
            fixture.search.setPrice("JFK-LHR", 40_000)
            let first = try await fixture.watchlists.create(addRequest(user) { $0.priceThreshold = usd(75_000) }).watchlist.watchlistID
            _ = try await fixture.watchlists.create(addRequest(user, "JFK", "LHR"))
            let gate = Gate()
            fixture.search.gates.update { $0["JFK-LHR"] = gate }
            let owner = try #require(try fixture.owner(user))
            fixture.clock.advance(by: WatchlistService.date(owner.nextCheckAtUnixMs).timeIntervalSince(fixture.clock.now()))
            // The creations' WatchlistChanged events wait there too.
            let before = try fixture.database.waitingEvents(limit: 100)
            #expect(before.map(\.typeName) == [WatchlistChanged.wireTypeName, WatchlistChanged.wireTypeName])
            let run = Task { await fixture.watchlists.runDueChecks() }
            // The second search is asked: the first watchlist is priced, but nothing is written yet.
            try await gate.waitForArrivals(1)
            #expect(try fixture.rows(user).first { $0.watchlistID == first }?.lastPriceMinorUnits == nil, "the first check waits for the run's end")
            #expect(try fixture.database.waitingEvents(limit: 100).count == before.count)
            gate.open()
            #expect(await run.value == 2)
            #expect(try fixture.rows(user).first { $0.watchlistID == first }?.lastPriceMinorUnits == 70_000)
            // The first watchlist's PriceChanged and ThresholdCrossed, then the second's PriceChanged.
            let written = try fixture.database.waitingEvents(limit: 100).dropFirst(before.count)
            // Required, not expected: the rows are read by position next (a short list crashed the whole test process).
            try #require(written.map(\.typeName) == [PriceChanged.wireTypeName, ThresholdCrossed.wireTypeName, PriceChanged.wireTypeName])
            let rows = Array(written)
            #expect(try PriceChanged(wireEncoded: [UInt8](rows[0].payload)).watchlistID == first)
            #expect(try ThresholdCrossed(wireEncoded: [UInt8](rows[1].payload)).watchlistID == first)
            #expect(try PriceChanged(wireEncoded: [UInt8](rows[2].payload)).watchlistID != first)
            #expect(try fixture.owner(user)?.nextCheckAtUnixMs ?? 0 > owner.nextCheckAtUnixMs, "the next check is planned in the same transaction")
        }
    }
}
