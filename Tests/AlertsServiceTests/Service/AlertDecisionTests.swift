@testable import AlertsService
import FareLensBus
import FareLensMessages
import FareLensStore
import FareLensTesting
import Foundation
import GRDB
import Testing
@testable import SubscriptionService

/// The service around the policy: recorded decisions, the inbox, the digest, requests.
@Suite struct AlertDecisionTests {
    @Test("a crossing is decided once (a redelivered event is skipped), recorded with its reason and content, and put in the outbox in the same transaction")
    func decidedOnce() async throws {
        let fixture = try AlertsFixture()
        let user = try await fixture.user("ana@example.com")
        let first = await fixture.alerts.decide([fixture.crossing(user, sequence: 1)])
        #expect(first.map(\.decisionValue) == [.sent])
        #expect(first[0].title == "Tokyo fell to $650")
        #expect(first[0].body == "At or below your $700 target.")
        #expect(first[0].reason == "Sent: price at or below the watchlist's threshold (1 of 3 today)")
        let again = await fixture.alerts.decide([fixture.crossing(user, sequence: 1)])
        #expect(again.isEmpty)
        #expect(try fixture.rows(user).count == 1)
        let outbox = try fixture.outbox()
        #expect(outbox.map(\.alertID) == [first[0].alertID] && outbox[0].status == .pending)
        let payload = try JSONSerialization.jsonObject(with: outbox[0].body) as? [String: Any]
        #expect(payload?["type"] as? String == "alert.threshold_crossed")
    }

    @Test("a transaction that fails (as on a full disk) is rolled back and tried again until it commits, deciding again at its own instant; cancelled while it fails, nothing is recorded")
    func failedTransactionRetried() async throws {
        let fixture = try AlertsFixture()
        let user = try await fixture.user("dee@example.com")
        let attempts = Locked(0)
        // Every insert into `alert` fails with SQLite's SQLITE_FULL, counted, until the trigger is dropped.
        try await fixture.database.writer.write { db in
            db.add(function: DatabaseFunction("refuse_alert", argumentCount: 0, pure: false) { _ in
                attempts.update { $0 += 1 }
                throw DatabaseError(resultCode: .SQLITE_FULL, message: "database or disk is full")
            })
            try db.execute(sql: "CREATE TEMP TRIGGER refuse BEFORE INSERT ON alert BEGIN SELECT refuse_alert(); END")
        }
        let deciding = Task { await fixture.alerts.decide([fixture.crossing(user, sequence: 1)]) }
        try await fixture.retryUntil("the transaction failed twice") { attempts.get() >= 2 }
        #expect(try fixture.rows(user).isEmpty)
        #expect(try await fixture.database.writer.read { db in try ServiceDatabase.appliedEventCount(in: db) } == 0, "the inbox row is rolled back with the decision")
        // A retry decides again at its own instant: 23:00 in New York by now, quiet hours.
        try await fixture.database.writer.write { db in try db.execute(sql: "DROP TRIGGER refuse") }
        fixture.clock.advance(by: 11 * 3_600)
        try await fixture.retryUntil("decided once the disk has room") { ((try? fixture.rows(user)) ?? []).count == 1 }
        let decided = await deciding.value
        #expect(decided.map(\.decisionValue) == [.held])
        #expect(decided.map(\.decidedAtUnixMs) == [fixture.clock.now().unixMilliseconds])
        #expect(try fixture.rows(user).count == 1)

        // Cancelled while failing: nothing recorded, and the call returns.
        try await fixture.database.writer.write { db in
            try db.execute(sql: "CREATE TEMP TRIGGER refuse BEFORE INSERT ON alert BEGIN SELECT refuse_alert(); END")
        }
        let failedBefore = attempts.get()
        let cancelled = Task { await fixture.alerts.decide([fixture.crossing(user, "JFK", "LAX", sequence: 2)]) }
        try await waitUntil("the second transaction failed") { attempts.get() > failedBefore }
        cancelled.cancel()
        #expect(await cancelled.value.isEmpty)
        #expect(try fixture.rows(user).count == 1)
    }

    @Test("a decision cancelled while it waits for the database's writer records nothing and logs no error: a graceful stop is not a failed write")
    func cancelledWhileWaitingForWriter() async throws {
        let fixture = try AlertsFixture()
        let user = try await fixture.user("eve@example.com")
        let logs = CapturedLogs()
        let alerts = AlertsService(
            database: fixture.database, bus: fixture.bus, clock: fixture.clock, channels: [fixture.channel],
            backoff: { _, _ in .seconds(1) }, logger: logs.logger())
        // The writer is held (a write blocked on a semaphore, at most 10 s) while the decision is made and cancelled.
        let held = DispatchSemaphore(value: 0)
        let writing = Locked(false)
        let holder = Task { try await fixture.database.writer.write { _ in writing.set(true); _ = held.wait(timeout: .now() + 10) } }
        try await waitUntil("the writer is held") { writing.get() }
        let deciding = Task { await alerts.decide([fixture.crossing(user, sequence: 1)]) }
        // Long enough for the GetUsers round trip and the queued write (a bounded window; either way nothing may be recorded).
        try await Task.sleep(for: .milliseconds(300))  // safe: a bounded window, see above
        deciding.cancel()
        held.signal()
        try await holder.value
        #expect(try await withTimeLimit("the cancelled decision returned") { await deciding.value }.isEmpty)
        #expect(try fixture.rows(user).isEmpty)
        let errors = logs.entries.filter { $0.level >= .error }
        #expect(errors.isEmpty, "\(errors.map(\.message))")
    }

    @Test("the 3rd Free alert of the local day is sent, the 4th capped; the next local day starts again at 0")
    func capByLocalDay() async throws {
        let fixture = try AlertsFixture()
        let user = try await fixture.user("ben@example.com")
        var decisions: [AlertDecision] = []
        for (index, destination) in ["NRT", "LAX", "SFO", "LHR"].enumerated() {
            decisions += await fixture.alerts.decide([fixture.crossing(user, "JFK", destination, sequence: UInt64(index))]).map(\.decisionValue)
            fixture.clock.advance(by: 60)
        }
        #expect(decisions == [.sent, .sent, .sent, .capped])
        // 12:04 → 07:30 the next day in New York: a new local day.
        fixture.clock.advance(by: 19.5 * 3_600)
        #expect(await fixture.alerts.decide([fixture.crossing(user, "JFK", "CDG", sequence: 9)]).map(\.decisionValue) == [.sent])
    }

    @Test("held in quiet hours, then carried by one digest when they end; the carried alerts say which digest")
    func digestAfterQuietHours() async throws {
        let fixture = try AlertsFixture(start: AlertsFixture.noonNewYork.addingTimeInterval(11 * 3_600))  // 23:00 New York
        let user = try await fixture.user("cy@example.com")
        let held = await fixture.alerts.decide([fixture.crossing(user, sequence: 1), fixture.crossing(user, "JFK", "LAX", cents: 30_000, sequence: 2)])
        #expect(held.map(\.decisionValue) == [.held, .held])
        #expect(await fixture.alerts.digest.sendDueDigests().isEmpty)
        fixture.clock.advance(by: 8 * 3_600 - 1)  // 06:59:59
        #expect(await fixture.alerts.digest.sendDueDigests().isEmpty)
        fixture.clock.advance(by: 1)  // 07:00
        let digests = await fixture.alerts.digest.sendDueDigests()
        #expect(digests.count == 1)
        #expect(digests[0].kindValue == .dailyDigest && digests[0].title == "Your FareLens digest: 2 alerts")
        #expect(digests[0].body == "Los Angeles fell to $300 · Tokyo fell to $650")  // equal queue scores: the lower price first, as the policy ranks
        let carried = try fixture.rows(user).filter { $0.kindValue != .dailyDigest }
        #expect(carried.allSatisfy { $0.digestAlertID == digests[0].alertID && $0.message.deliveryState == .inDigest })
        #expect(await fixture.alerts.digest.sendDueDigests().isEmpty)
        await fixture.alerts.delivery.deliverDue()
        #expect(fixture.channel.deliveredIDs == [digests[0].alertID])
    }

    @Test("mute, unmute, pause and resume over the bus, with their errors by code")
    func settingsRequests() async throws {
        let fixture = try AlertsFixture()
        let user = try await fixture.user("dee@example.com")
        var mute = MuteRouteRequest()
        mute.userID = user
        mute.origin = "jfk"
        mute.destination = "NRT"
        let muted = try await fixture.bus.request(mute)
        #expect(muted.mutedUntilUnixMs == fixture.clock.now().addingTimeInterval(30 * 86_400).unixMilliseconds)
        #expect(await fixture.alerts.decide([fixture.crossing(user, sequence: 1)]).map(\.decisionValue) == [.muted])
        var unmute = UnmuteRouteRequest()
        unmute.userID = user
        unmute.origin = "JFK"
        unmute.destination = "NRT"
        #expect(try await fixture.bus.request(unmute).wasMuted)
        #expect(try await fixture.bus.request(unmute).wasMuted == false)
        var pause = PauseAlertsRequest()
        pause.userID = user
        let paused = try await fixture.bus.request(pause)
        #expect(paused.pausedUntilUnixMs == fixture.clock.now().addingTimeInterval(24 * 3_600).unixMilliseconds)
        var settings = AlertSettingsRequest()
        settings.userID = user
        #expect(try await fixture.bus.request(settings).pausedUntilUnixMs == paused.pausedUntilUnixMs)
        #expect(await fixture.alerts.decide([fixture.crossing(user, sequence: 2)]).map(\.decisionValue) == [.muted])
        var resume = ResumeAlertsRequest()
        resume.userID = user
        #expect(try await fixture.bus.request(resume).wasPaused)
        #expect(await fixture.alerts.decide([fixture.crossing(user, sequence: 3)]).map(\.decisionValue) == [.sent])

        var bad = mute
        bad.destination = "TOKYO"
        await #expect { try await fixture.bus.request(bad) } throws: { ($0 as? BusError)?.remoteCode == "invalid-field" && "\($0)".contains("destination") }
        var unknown = mute
        unknown.origin = "XXX"
        await #expect { try await fixture.bus.request(unknown) } throws: { ($0 as? BusError)?.remoteCode == "unknown-airport" && "\($0)".contains("origin: 'XXX'") }
        var oneCity = mute
        (oneCity.origin, oneCity.destination) = ("LCY", "LHR")
        await #expect { try await fixture.bus.request(oneCity) } throws: {
            ($0 as? BusError)?.remoteCode == "invalid-field" && "\($0)".contains("destination: LHR is in the same city as the origin LCY (London, LON)")
        }
        var unmuteUnknown = unmute
        unmuteUnknown.origin = "XXX"
        #expect(try await fixture.bus.request(unmuteUnknown).wasMuted == false, "unmute does not ask the directory: a stored mute stays removable")
        var stranger = mute
        stranger.userID = "u-nobody"
        await #expect { try await fixture.bus.request(stranger) } throws: { ($0 as? BusError)?.remoteCode == "unknown-user" }
        var tooLong = pause
        tooLong.hours = 10_000
        await #expect { try await fixture.bus.request(tooLong) } throws: { ($0 as? BusError)?.remoteCode == "invalid-field" && "\($0)".contains("hours") }
    }

    @Test("history answers 'why didn't I get this?' newest first, filtered by decision; a known user's empty history is empty, an unknown user's is unknown-user")
    func history() async throws {
        let fixture = try AlertsFixture(start: AlertsFixture.noonNewYork.addingTimeInterval(11 * 3_600))
        let user = try await fixture.user("eve@example.com")
        _ = await fixture.alerts.decide([fixture.crossing(user, sequence: 1)])
        var request = AlertHistoryRequest()
        request.userID = user
        let answer = try await fixture.bus.request(request)
        #expect(answer.alerts.map(\.decision) == [.held])
        #expect(answer.alerts[0].reason == "Quiet hours (22:00–07:00 in America/New_York); held for the digest")
        request.decision = .sent
        #expect(try await fixture.bus.request(request).alerts.isEmpty)
        request.limit = 501
        await #expect { try await fixture.bus.request(request) } throws: { ($0 as? BusError)?.remoteCode == "invalid-field" }
        var stranger = AlertHistoryRequest()
        stranger.userID = "u-nobody"
        await #expect { try await fixture.bus.request(stranger) } throws: { ($0 as? BusError)?.remoteCode == "unknown-user" }
    }

    @Test("a deleted user's alerts, outbox rows, mutes and pause are erased")
    func erasure() async throws {
        let fixture = try AlertsFixture()
        let user = try await fixture.user("fay@example.com")
        _ = await fixture.alerts.decide([fixture.crossing(user, sequence: 1)])
        await fixture.alerts.erase(user)
        #expect(try fixture.rows(user).isEmpty)
        #expect(try fixture.outbox().isEmpty)
    }

    @Test("an exceptional deal reaches every user preferring its origin, ranked by score × (1 + airport weight), with the deal's wording")
    func exceptionalDealFanOut() async throws {
        let fixture = try AlertsFixture()
        let one = try await fixture.user("gus@example.com", tier: .pro, airports: ["JFK", "LAX"])
        let other = try await fixture.user("hal@example.com", airports: ["JFK"])
        let elsewhere = try await fixture.user("ivy@example.com", airports: ["SFO"])
        var deal = Deal()
        deal.dealID = "d-1"
        deal.origin = "JFK"
        deal.destination = "NRT"
        deal.price = usd(65_000)
        deal.score.score = 92
        deal.score.hotDeal = false
        deal.score.discountBasisPoints = 3_500
        deal.expiresAtUnixMs = fixture.clock.now().addingTimeInterval(6 * 3_600 + 60).unixMilliseconds
        let users = try await fixture.alerts.audience.preferring("JFK", orMetro: nil)
        let candidates = users.map { AlertsService.candidate(for: deal, user: $0, watchesRoute: false) }
        let rows = await fixture.alerts.decide([PendingEvent(key: InboxKey(publisher: "scoring", sequence: 1), consumer: AlertsService.dealConsumer, candidates: candidates)])
        #expect(Set(rows.map(\.userID)) == [one, other])
        #expect(!rows.contains { $0.userID == elsewhere })
        let byUser = Dictionary(uniqueKeysWithValues: rows.map { ($0.userID, $0) })
        #expect(abs((byUser[one]?.queueScore ?? 0) - 92 * 1.5) < 1e-9)
        #expect(abs((byUser[other]?.queueScore ?? 0) - 92 * 2) < 1e-9)
        #expect(byUser[other]?.title == "Tokyo deal dropped to $650")
        #expect(byUser[other]?.body == "Save 35% vs average. Expires in 6 hours.")
    }

    @Test("routes are compared by metro: LHR→NRT within 12 hours of LON→NRT is deduped, and a mute of LON→NRT mutes LCY→NRT")
    func routesByMetro() async throws {
        let fixture = try AlertsFixture()
        let user = try await fixture.user("mo@example.com", tier: .pro)
        #expect(await fixture.alerts.decide([fixture.crossing(user, "LON", "NRT", sequence: 1)]).map(\.decisionValue) == [.sent])
        fixture.clock.advance(by: 3_600)
        let again = await fixture.alerts.decide([fixture.crossing(user, "LHR", "NRT", sequence: 2)])
        #expect(again.map(\.decisionValue) == [.deduped])
        #expect(again.first?.reason.hasPrefix("Route LHR→NRT was alerted at") == true)
        #expect(await fixture.alerts.decide([fixture.crossing(user, "JFK", "NRT", sequence: 4)]).map(\.decisionValue) == [.sent], "another metro is another route")
        var mute = MuteRouteRequest()
        (mute.userID, mute.origin, mute.destination) = (user, "LON", "NRT")
        _ = try await fixture.alerts.mute(mute)
        fixture.clock.advance(by: 13 * 3_600)
        #expect(await fixture.alerts.decide([fixture.crossing(user, "LCY", "NRT", sequence: 3)]).map(\.decisionValue) == [.muted])
    }

    @Test("an exceptional deal from an airport also reaches users who prefer its metro (LCY → LON), once each with their higher weight")
    func exceptionalDealReachesMetro() async throws {
        let fixture = try AlertsFixture()
        let metro = try await fixture.user("jo@example.com", airports: ["LON"])
        let both = try await fixture.user("kai@example.com", tier: .pro, airports: ["LCY", "LON", "JFK"])
        let heathrow = try await fixture.user("lee@example.com", airports: ["LHR"])
        #expect(await fixture.alerts.learnPlaces(["LCY", "JFK"]))
        #expect(await fixture.alerts.metro(of: "LCY") == "LON")
        #expect(await fixture.alerts.metro(of: "JFK") == nil)
        let users = try await fixture.alerts.audience.preferring("LCY", orMetro: await fixture.alerts.metro(of: "LCY"))
        #expect(users.map(\.userID) == [metro, both].sorted(), "once each; a user preferring another airport of the metro is not included")
        #expect(!users.contains { $0.userID == heathrow })
        #expect(users.first { $0.userID == both }.map { abs($0.weight - 1.0 / 3) < 1e-9 } == true)
    }

    @Test("a batch's recipients are read from what alerts keeps of subscription's events, nothing asked (no one serves GetUsers on its bus); a deleted user is skipped at once")
    func recipientsKeptNotAsked() async throws {
        let alertsBus = MessageBus()
        let fixture = try AlertsFixture(alertsBus: alertsBus, wireStart: Date(timeIntervalSince1970: 1_800_000_000))
        try fixture.directory.serve(on: alertsBus)
        var users: [String] = []
        // More than one slice of the store's read (500 ids a statement).
        for index in 0..<1_001 { users.append(try await fixture.user("u\(index)@example.com")) }
        let gone = try await fixture.user("gone@example.com")
        var deletion = UserDeleted()
        (deletion.userID, deletion.atUnixMs) = (gone, fixture.clock.now().unixMilliseconds)
        await fixture.alerts.audience.apply(deletion)
        let pending = (users + [gone]).enumerated().map { index, user in fixture.crossing(user, sequence: UInt64(index)) }
        let rows = try await withTimeLimit("1,002 crossings decided") { await fixture.alerts.decide(pending) }
        #expect(rows.count == 1_001 && rows.allSatisfy { $0.decisionValue == .sent })
        #expect(!rows.contains { $0.userID == gone })
        #expect(fixture.wire.sleeping == 0, "nothing waited for")
    }

    @Test("a user alerts has not heard of (its node joined after they were created) is asked of subscription, kept, and decided at once; one subscription does not know is skipped at once, nothing waited for")
    func unheardUserAskedOfSubscription() async throws {
        let fixture = try AlertsFixture(wireStart: Date(timeIntervalSince1970: 1_800_000_000), handsAudience: false)
        var create = CreateUserRequest()
        (create.email, create.timeZone) = ("joined-before@example.com", "Europe/Paris")
        let before = try await fixture.subscription.createUser(create).user.userID
        #expect(try fixture.alerts.audience.counts().users == 0, "no event told alerts of the user")
        let rows = try await withTimeLimit("the user's crossing decided") { await fixture.alerts.decide([fixture.crossing(before, sequence: 1)]) }
        #expect(rows.map(\.userID) == [before] && rows.first?.decisionValue == .sent)
        #expect(try fixture.alerts.audience.counts().users == 1, "the answer is kept: the next batch asks nothing")
        let kept = try #require(try await fixture.alerts.audience.users([before]).known.first)
        #expect(kept.timeZone == "Europe/Paris" && kept.preferencesAtUnixMs == 0, "kept as an announcement any event of subscription's supersedes")
        let ghost = try await withTimeLimit("the unknown user's crossing handled") { await fixture.alerts.decide([fixture.crossing("u-ghost", sequence: 2)]) }
        #expect(ghost.isEmpty)
        #expect(fixture.wire.sleeping == 0, "nothing waited for")
    }

    @Test("while subscription cannot be asked, a user alerts has not heard of is waited for on the transport clock and decided once their settings arrive; one never heard of is skipped after 30 s of it")
    func unheardUserWaitedFor() async throws {
        // Alerts on a bus of its own, where only search's directory answers: nothing there answers GetUsers (subscription away).
        let alertsBus = AlertsFixture.patientBus()
        let fixture = try AlertsFixture(alertsBus: alertsBus, wireStart: Date(timeIntervalSince1970: 1_800_000_000), handsAudience: false)
        try fixture.directory.serve(on: alertsBus)
        var create = CreateUserRequest()
        (create.email, create.timeZone) = ("late@example.com", "America/New_York")
        let late = try await fixture.subscription.createUser(create).user.userID
        let deciding = Task { await fixture.alerts.decide([fixture.crossing(late, sequence: 1)]) }
        #expect(await fixture.wire.waitUntilSleeping(1), "the batch waits for the user's settings")
        fixture.wire.advance(by: 1)
        #expect(await fixture.wire.waitUntilSleeping(1), "and waits again: still not heard of")
        #expect(try fixture.rows(late).isEmpty)
        await fixture.keepPreferences(of: late)
        fixture.wire.advance(by: 1)
        let rows = try await withTimeLimit("the late user's crossing decided") { await deciding.value }
        #expect(rows.map(\.userID) == [late] && rows.first?.decisionValue == .sent)

        let ghost = Task { await fixture.alerts.decide([fixture.crossing("u-ghost", sequence: 2)]) }
        var advanced = 0
        try await waitUntil("the unknown user given up after 30 s of the transport clock") {
            if fixture.wire.sleeping > 0 { fixture.wire.advance(by: 1); advanced += 1 }
            return advanced >= AlertsService.unheardUserPatience
        }
        let none = try await withTimeLimit("the unknown user's crossing handled") { await ghost.value }
        #expect(none.isEmpty)
        #expect(advanced == 30)
    }
}
