@testable import AlertsService
import FareLensMessages
import Foundation
import Testing

/// Every branch of the alert policy at its edges (SPEC § 5), on the pure function.
@Suite struct AlertPolicyTests {
    static let newYork = TimeZone(identifier: "America/New_York")!

    /// A local wall-clock time in New York.
    static func local(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int = 0, zone: TimeZone = newYork) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))!
    }

    static func recipient(cap: Int = 3, tier: Tier = .free, quiet: QuietHoursWindow = .standard, zone: TimeZone = newYork) -> AlertRecipient {
        AlertRecipient(userID: "u1", zone: zone, quietHours: quiet, dailyCap: cap, tier: tier)
    }

    static func candidate(_ destination: String = "NRT", score: Double = 100, kind: AlertKind = .thresholdCrossed, exceptional: Bool = false, deal: String = "") -> AlertCandidate {
        var candidate = AlertCandidate(userID: "u1", kind: kind, origin: "JFK", destination: destination, price: Money(minorUnits: 65_000, currency: "USD"), queueScore: score)
        candidate.trulyExceptional = exceptional
        candidate.dealID = deal
        candidate.discountBasisPoints = exceptional ? 4_500 : 2_000
        return candidate
    }

    static func decide(_ candidates: [AlertCandidate], _ recipient: AlertRecipient = recipient(), at now: Date, state: inout RecipientState) -> [AlertDecision] {
        AlertPolicy.decide(candidates, for: recipient, state: &state, at: now).map(\.decision)
    }

    static func decideFresh(_ candidate: AlertCandidate, at now: Date, _ recipient: AlertRecipient = recipient()) -> AlertPolicy.Outcome {
        var state = RecipientState(day: QuietHoursWindow.localDay(now, in: recipient.zone))
        return AlertPolicy.decide([candidate], for: recipient, state: &state, at: now)[0]
    }

    @Test("quiet hours 22:00–07:00 local: 21:59 sent, 22:00 held, 06:59 held, 07:00 sent")
    func quietHourEdges() {
        let cases: [(Int, Int, AlertDecision)] = [(21, 59, .sent), (22, 0, .held), (6, 59, .held), (7, 0, .sent), (3, 0, .held), (12, 0, .sent)]
        for (hour, minute, expected) in cases {
            let outcome = Self.decideFresh(Self.candidate(), at: Self.local(2026, 6, 10, hour, minute))
            #expect(outcome.decision == expected, "\(hour):\(minute)")
            if expected == .held { #expect(outcome.reason.contains("Quiet hours (22:00–07:00 in America/New_York)")) }
        }
    }

    @Test("a user's own quiet hours, one that does not wrap midnight, and quiet hours off")
    func customQuietHours() {
        let late = QuietHoursWindow(start: 23 * 60 + 30, end: 6 * 60, enabled: true)
        #expect(Self.decideFresh(Self.candidate(), at: Self.local(2026, 6, 10, 23, 29), Self.recipient(quiet: late)).decision == .sent)
        #expect(Self.decideFresh(Self.candidate(), at: Self.local(2026, 6, 10, 23, 30), Self.recipient(quiet: late)).decision == .held)
        #expect(Self.decideFresh(Self.candidate(), at: Self.local(2026, 6, 11, 6, 0), Self.recipient(quiet: late)).decision == .sent)
        let afternoon = QuietHoursWindow(start: 13 * 60, end: 14 * 60, enabled: true)
        #expect(Self.decideFresh(Self.candidate(), at: Self.local(2026, 6, 10, 13, 30), Self.recipient(quiet: afternoon)).decision == .held)
        #expect(Self.decideFresh(Self.candidate(), at: Self.local(2026, 6, 10, 23, 0), Self.recipient(quiet: afternoon)).decision == .sent)
        let off = QuietHoursWindow(start: 0, end: 0, enabled: false)
        #expect(Self.decideFresh(Self.candidate(), at: Self.local(2026, 6, 10, 3, 0), Self.recipient(quiet: off)).decision == .sent)
        var setting = QuietHours()
        setting.disabled = true
        #expect(QuietHoursWindow(setting).enabled == false)
        #expect(QuietHoursWindow(nil) == .standard)
    }

    @Test("in quiet hours one truly exceptional deal (> 40% below average) is sent per local day, the next is held; the next day allows one again")
    func quietException() {
        let night = Self.local(2026, 6, 10, 23, 0)
        var state = RecipientState(day: QuietHoursWindow.localDay(night, in: Self.newYork))
        let deals = [Self.candidate("NRT", kind: .exceptionalDeal, exceptional: true, deal: "d1"), Self.candidate("LAX", score: 90, kind: .exceptionalDeal, exceptional: true, deal: "d2")]
        let outcomes = AlertPolicy.decide(deals, for: Self.recipient(), state: &state, at: night)
        #expect(outcomes.map(\.decision) == [.sent, .held])
        #expect(outcomes[0].quietException)
        #expect(outcomes[1].reason == "Quiet hours (22:00–07:00 in America/New_York); tonight's one exceptional deal was already sent; held for the digest")
        // Not truly exceptional (≤ 40% below): held even as the first.
        #expect(Self.decideFresh(Self.candidate(kind: .exceptionalDeal, exceptional: false), at: night).decision == .held)
        // A threshold crossing never breaks quiet hours.
        var crossing = Self.candidate()
        crossing.trulyExceptional = true
        #expect(Self.decideFresh(crossing, at: night).decision == .held)
        // 00:30 is the next local day: one more is allowed.
        let after = Self.local(2026, 6, 11, 0, 30)
        var next = RecipientState(day: QuietHoursWindow.localDay(after, in: Self.newYork))
        next.lastSent = state.lastSent
        #expect(Self.decide([Self.candidate("SFO", kind: .exceptionalDeal, exceptional: true, deal: "d3")], at: after, state: &next) == [.sent])
    }

    @Test("the same route or deal is not sent twice within 12 hours; at 12 hours it is")
    func dedupeBoundary() {
        let sentAt = Self.local(2026, 6, 10, 8, 0)
        var state = RecipientState(day: QuietHoursWindow.localDay(sentAt, in: Self.newYork))
        #expect(Self.decide([Self.candidate(deal: "d1")], at: sentAt, state: &state) == [.sent])
        let almost = sentAt.addingTimeInterval(12 * 3_600 - 1)
        let outcome = AlertPolicy.decide([Self.candidate()], for: Self.recipient(cap: 10), state: &state, at: almost)[0]
        #expect(outcome.decision == .deduped)
        #expect(outcome.reason.contains("less than 12 hours ago"))
        // Another route is not a duplicate; the same deal on … the same route is.
        #expect(Self.decide([Self.candidate("LAX")], Self.recipient(cap: 10), at: almost, state: &state) == [.sent])
        #expect(Self.decide([Self.candidate(deal: "d1")], Self.recipient(cap: 10), at: sentAt.addingTimeInterval(12 * 3_600), state: &state) == [.sent])
    }

    @Test("Free: the 3rd alert of the day is sent, the 4th capped; competing candidates are taken highest queue score first")
    func freeCap() {
        let noon = Self.local(2026, 6, 10, 12, 0)
        var state = RecipientState(day: QuietHoursWindow.localDay(noon, in: Self.newYork))
        let candidates = [Self.candidate("AAA", score: 70), Self.candidate("BBB", score: 163.2), Self.candidate("CCC", score: 90), Self.candidate("DDD", score: 120)]
        let outcomes = AlertPolicy.decide(candidates, for: Self.recipient(cap: 3), state: &state, at: noon)
        #expect(outcomes.map(\.candidate.destination) == ["BBB", "DDD", "CCC", "AAA"])
        #expect(outcomes.map(\.decision) == [.sent, .sent, .sent, .capped])
        #expect(outcomes[3].reason == "Daily cap of 3 immediate alerts (Free) reached; in the next digest")
    }

    @Test("Pro: the 6th alert is sent, the 7th capped, counting what was already sent today")
    func proCap() {
        let noon = Self.local(2026, 6, 10, 12, 0)
        var state = RecipientState(day: QuietHoursWindow.localDay(noon, in: Self.newYork))
        state.sentOnDay = 5
        let outcomes = AlertPolicy.decide([Self.candidate("AAA", score: 80), Self.candidate("BBB", score: 95)], for: Self.recipient(cap: 6, tier: .pro), state: &state, at: noon)
        #expect(outcomes.map(\.candidate.destination) == ["BBB", "AAA"])
        #expect(outcomes.map(\.decision) == [.sent, .capped])
        #expect(outcomes[1].reason.contains("6 immediate alerts (Pro)"))
    }

    @Test("pause and route mute hold until they expire; at expiry alerts flow again")
    func pauseAndMuteExpiry() {
        let now = Self.local(2026, 6, 10, 12, 0)
        var state = RecipientState(day: QuietHoursWindow.localDay(now, in: Self.newYork))
        state.pausedUntil = now.addingTimeInterval(3_600)
        let paused = AlertPolicy.decide([Self.candidate()], for: Self.recipient(), state: &state, at: now.addingTimeInterval(3_599))[0]
        #expect(paused.decision == .muted)
        #expect(paused.reason.hasPrefix("All alerts paused until"))
        #expect(Self.decide([Self.candidate()], at: now.addingTimeInterval(3_600), state: &state) == [.sent])

        var muted = RecipientState(day: state.day)
        muted.mutedRoutes["JFK→NRT"] = now.addingTimeInterval(60)
        #expect(Self.decide([Self.candidate()], at: now, state: &muted) == [.muted])
        #expect(Self.decide([Self.candidate("LAX")], at: now, state: &muted) == [.sent])
        #expect(Self.decide([Self.candidate()], at: now.addingTimeInterval(60), state: &muted) == [.sent])

        var watchlistMuted = Self.candidate()
        watchlistMuted.watchlistMutedUntil = now.addingTimeInterval(1)
        #expect(Self.decideFresh(watchlistMuted, at: now).decision == .muted)
    }

    @Test("digest-only watchlists are held; drops under 5% are not alertable")
    func digestOnlyAndSmallDrops() {
        let noon = Self.local(2026, 6, 10, 12, 0)
        var digest = Self.candidate()
        digest.digestOnly = true
        #expect(Self.decideFresh(digest, at: noon).decision == .held)
        var small = Self.candidate(kind: .priceDrop)
        small.belowDropMinimum = true
        small.discountBasisPoints = 300
        let outcome = Self.decideFresh(small, at: noon)
        #expect(outcome.decision == .notAlertable)
        #expect(outcome.reason == "Price drop of 3% is under the 5% worth an alert")
    }

    @Test("DST nights in New York: quiet hours follow the local clock, and the digest is due at 07:00 local after a 23-hour night")
    func daylightSavingNights() {
        // 2026-03-08: clocks jump from 02:00 to 03:00 EST→EDT.
        #expect(Self.decideFresh(Self.candidate(), at: Date(timeIntervalSince1970: 1_772_967_540)).decision == .held)  // 2026-03-08T10:59Z = 06:59 EDT
        #expect(Self.decideFresh(Self.candidate(), at: Date(timeIntervalSince1970: 1_772_967_600)).decision == .sent)  // 11:00Z = 07:00 EDT
        let lateSaturday = Self.local(2026, 3, 7, 23, 0)  // 04:00Z on the 8th (EST)
        let due = QuietHoursWindow.standard.nextEnd(after: lateSaturday, in: Self.newYork)
        #expect(due == Date(timeIntervalSince1970: 1_772_967_600))
        #expect(due.timeIntervalSince(lateSaturday) == 7 * 3_600)
        // 2026-11-01: 01:30 happens twice; both are quiet; 07:00 EST is 12:00Z.
        #expect(Self.decideFresh(Self.candidate(), at: Date(timeIntervalSince1970: 1_793_511_000)).decision == .held)  // 05:30Z = 01:30 EDT
        #expect(Self.decideFresh(Self.candidate(), at: Date(timeIntervalSince1970: 1_793_514_600)).decision == .held)  // 06:30Z = 01:30 EST
        #expect(Self.decideFresh(Self.candidate(), at: Date(timeIntervalSince1970: 1_793_534_340)).decision == .held)  // 11:59Z = 06:59 EST
        #expect(Self.decideFresh(Self.candidate(), at: Date(timeIntervalSince1970: 1_793_534_400)).decision == .sent)  // 12:00Z = 07:00 EST
    }

    @Test("the local day is the user's: 23:30 in Kolkata is already the next day in UTC terms only for the zone's own clock")
    func localDayByZone() {
        let kolkata = TimeZone(identifier: "Asia/Kolkata")!
        let instant = Date(timeIntervalSince1970: 1_781_114_400)  // 2026-06-10T18:00Z = 23:30 IST
        #expect(QuietHoursWindow.localDay(instant, in: kolkata).description == "2026-06-10")
        // Clock faces come from a table of the day's minutes; a minute outside the day is formatted all the same.
        #expect([0, 7 * 60, 22 * 60 + 5, 1_439].map(QuietHoursWindow.clock) == ["00:00", "07:00", "22:05", "23:59"])
        #expect(QuietHoursWindow.clock(25 * 60 + 3) == "25:03")
        #expect(QuietHoursWindow.localDay(instant.addingTimeInterval(1_800), in: kolkata).description == "2026-06-11")
        #expect(QuietHoursWindow.localDay(instant.addingTimeInterval(1_800), in: .gmt).description == "2026-06-10")
        #expect(QuietHoursWindow.minuteOfDay(instant, in: kolkata) == 23 * 60 + 30)
    }

    @Test("content: 'Tokyo deal dropped to $650' / 'Save 35% vs average. Expires in 6 hours.' in the currency's own minor units")
    func wording() {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        var deal = Self.candidate(kind: .exceptionalDeal, deal: "d1")
        deal.discountBasisPoints = 3_500
        deal.expiresAt = now.addingTimeInterval(6 * 3_600 + 600)
        let content = AlertWording.content(for: deal, city: "Tokyo", at: now)
        #expect(content.title == "Tokyo deal dropped to $650")
        #expect(content.body == "Save 35% vs average. Expires in 6 hours.")
        #expect(content.actions == [.view, .muteRoute, .pause])
        var yen = deal
        yen.price = Money(minorUnits: 65_000, currency: "JPY")
        #expect(AlertWording.content(for: yen, city: "Tokyo", at: now).title == "Tokyo deal dropped to ¥65,000")
        var euro = Self.candidate()
        euro.price = Money(minorUnits: 4_550, currency: "EUR")
        euro.threshold = Money(minorUnits: 5_000, currency: "EUR")
        let crossing = AlertWording.content(for: euro, city: "London", at: now)
        #expect(crossing.title == "London fell to €45.50")
        #expect(crossing.body == "At or below your €50 target.")
        // A USD fare compared with a EUR threshold (issue #60): the fare in its own currency, ≈ the threshold's with the rate's day.
        var converted = euro
        converted.price = Money(minorUnits: 9_800, currency: "USD")
        converted.threshold = Money(minorUnits: 9_000, currency: "EUR")
        converted.comparedPrice = Money(minorUnits: 8_947, currency: "EUR")
        converted.exchangeRateDate = "2024-01-04"
        let convertedContent = AlertWording.content(for: converted, city: "Tokyo", at: now)
        #expect(convertedContent.title == "Tokyo fell to $98")
        #expect(convertedContent.body == "≈ €89.47 at the ECB rate of 2024-01-04: at or below your €90 target.")
        // The decision's reason names the converted price and the rate's day too.
        let reason = Self.decideFresh(converted, at: Self.local(2026, 6, 10, 12, 0)).reason
        #expect(reason.hasPrefix("Sent: price at or below the watchlist's threshold: ≈ €89.47 at the ECB rate of 2024-01-04 ("), "\(reason)")
        var simulated = deal
        simulated.simulated = true
        #expect(AlertWording.content(for: simulated, city: "Tokyo", at: now).body.hasSuffix("Simulated market fare."))
    }

    @Test("content written before the transaction is the content at any instant; an exceptional deal that says when it expires gets none")
    func instantFreeContent() {
        var crossing = Self.candidate()
        crossing.threshold = usd(70_000)
        var drop = Self.candidate(kind: .priceDrop)
        drop.discountBasisPoints = 1_200
        drop.previousPrice = usd(74_000)
        let timelessDeal = Self.candidate(kind: .exceptionalDeal, deal: "d2")
        let trial = Self.candidate(kind: .trialEnding)
        var simulated = crossing
        simulated.simulated = true
        let instants = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_790_000_000), Date(timeIntervalSince1970: 4_000_000_000)]
        for candidate in [crossing, drop, timelessDeal, trial, simulated] {
            let preset = AlertWording.instantFreeContent(for: candidate, city: "Tokyo")
            #expect(preset != nil, "\(candidate.kind)")
            for instant in instants { #expect(preset == AlertWording.content(for: candidate, city: "Tokyo", at: instant), "\(candidate.kind)") }
        }
        var expiring = timelessDeal
        expiring.expiresAt = instants[1].addingTimeInterval(6 * 3_600)
        #expect(AlertWording.instantFreeContent(for: expiring, city: "Tokyo") == nil)
    }
}
