import FareLensBus
import FareLensMessages
import FareLensRuntime
import FareLensServiceKit
import Foundation
import Synchronization

/// Runs the demo on a ready node: seeds the cast over the bus (the services
/// may live in other processes), then tells, once per simulated day, what
/// the market and the services did. Everything it prints says simulated.
final class DemoDirector: Sendable {
    let bus: MessageBus
    let clock: any WallClock
    /// The node's socket, named in the commands the narration suggests.
    let socket: String
    let print: @Sendable (String) -> Void

    /// What the subscriptions counted since start.
    private let tally = Mutex(DemoTally())
    private let searches: EventSubscription<SearchCompleted>
    private let deals: EventSubscription<DealScored>
    private let running = Mutex<Task<Void, Never>?>(nil)

    /// Subscribes at once (before the node starts), so nothing the market
    /// does is missed.
    /// - Parameter socket: where the node listens, which the narration's commands name.
    init(bus: MessageBus, clock: any WallClock, socket: String, print: @escaping @Sendable (String) -> Void) {
        self.socket = socket
        self.bus = bus
        self.clock = clock
        self.print = print
        searches = bus.subscribe(SearchCompleted.self, bufferSize: 65_536)
        deals = bus.subscribe(DealScored.self, bufferSize: 65_536)
    }

    /// Starts seeding and narrating in the background.
    func start() {
        running.withLock { $0 = Task { await self.run() } }
    }

    /// Stops narrating (the node is stopping).
    func stop() {
        running.withLock { $0?.cancel() }
    }

    /// Seeds, then narrates until cancelled.
    private func run() async {
        let pace = clock is SteppedClock
            ? "stands still until `farelensctl clock advance` moves it"
            : "runs \(Int(clock.rate / 3600)) simulated hours per real second"
        // The epoch, not now: the node took a moment to start, in which a fast clock already ran hours ahead.
        let origin = (clock as? FastForwardClock)?.epoch ?? clock.now()
        let now = clock is SteppedClock ? "" : " (now \(Self.stamp(clock.now())))"
        print("demo: simulated time started \(Self.stamp(origin)) (demo-epoch=\(Int64(origin.timeIntervalSince1970))) and \(pace)\(now); every fare is simulated")
        let seeded: [SeededTraveller]
        do {
            seeded = try await DemoSeeder(bus: bus).seed { print("demo: \($0)") }
        } catch {
            print("demo: error: \(error)")
            return
        }
        await withDiscardingTaskGroup { group in
            group.addTask { for await batch in self.searches.batches(maximum: 1024) { self.tally.withLock { $0.count(batch.map(\.event)) } } }
            group.addTask { for await batch in self.deals.batches(maximum: 1024) { self.count(batch.map(\.event.deal)) } }
            group.addTask { await self.narrate(seeded) }
        }
    }

    private func count(_ scored: [Deal]) {
        let first = tally.withLock { tally -> Deal? in
            let isFirst = tally.dealsScored == 0
            tally.count(scored)
            return isFirst ? scored.first : nil
        }
        if let first { print("demo: first deal scored: \(DemoLines.deal(first))") }
    }

    /// One line per simulated day; after the first alerts, the commands to try.
    private func narrate(_ travellers: [SeededTraveller]) async {
        let start = clock.now()
        var day = 0
        var since = Int64(start.timeIntervalSince1970 * 1000)
        var decisions: [AlertDecision: Int] = [:]
        var hinted = false
        let end = (clock as? FastForwardClock)?.end
        while !Task.isCancelled {
            if let end, clock.now() >= end {
                print("demo: the simulated clock stopped at \(Self.stamp(end)); nothing more is due (Ctrl-C stops the node)")
                return
            }
            day += 1
            let dayEnd = start.addingTimeInterval(Double(day) * 86_400)
            // The clock's own pace: a stopped fast clock stops at a day's end (--demo-days is whole days).
            while !Task.isCancelled, clock.now() < dayEnd {
                try? await clock.sleep(until: dayEnd, floor: .milliseconds(50))  // safe: the narration's pace, one line per simulated day; ends on cancellation
            }
            guard !Task.isCancelled else { return }
            var example: (SeededTraveller, AlertRecord)?
            // A different traveller leads each day, so the example alert goes round the cast.
            let lead = day % max(1, travellers.count)
            for traveller in Array(travellers[lead...]) + Array(travellers[..<lead]) {
                var request = AlertHistoryRequest()
                request.userID = traveller.userID
                request.sinceUnixMs = since
                request.limit = 500
                guard let alerts = try? await bus.request(request).alerts else { continue }
                for alert in alerts { decisions[alert.decision, default: 0] += 1 }
                if example == nil, let sent = alerts.first(where: { $0.decision == .sent }) { example = (traveller, sent) }
            }
            since = Int64(clock.now().timeIntervalSince1970 * 1000)
            let counts = tally.withLock { $0 }
            print("demo: day \(day), \(Self.stamp(clock.now())) (simulated) · \(counts.summary) · alerts decided: \(DemoLines.decisions(decisions))")
            if let (traveller, alert) = example {
                print("demo:   e.g. to \(traveller.name) (\(traveller.city), \(traveller.tierName)): \"\(alert.content.title)\" — \(alert.reason)")
            }
            // From two simulated weeks, once a week: buy or wait on a watched route, with its measured accuracy.
            if day >= 14, day % 7 == 0, let line = await forecastLine(travellers) { print(line) }
            if !hinted, counts.dealsScored > 0, decisions.values.reduce(0, +) > 0, let first = travellers.first {
                hinted = true
                print(DemoLines.hints(travellers: travellers, first: first, now: clock.now(), socket: socket))
            }
        }
    }

    /// Buy or wait for the first watched route, departing 21 days ahead
    /// (the sweep's departures); nil when scoring cannot answer.
    private func forecastLine(_ travellers: [SeededTraveller]) async -> String? {
        guard let route = travellers.lazy.flatMap(\.routes).first else { return nil }
        let ends = route.split(separator: "→")
        guard ends.count == 2 else { return nil }
        let ahead = CalendarDate.of(clock.now(), in: .gmt).adding(days: 21)
        var request = FareForecastRequest()
        request.origin = String(ends[0])
        request.destination = String(ends[1])
        request.departureYear = Int32(ahead.year)
        request.departureMonth = Int32(ahead.month)
        guard let response = try? await bus.request(request) else { return nil }
        return DemoLines.forecast(route: route, month: String(ahead.description.prefix(7)), response)
    }

    static func stamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle().year().month().day().time(includingFractionalSeconds: false).dateTimeSeparator(.space)) + " UTC"
    }
}

/// Counts of what the market and scoring did.
struct DemoTally: Sendable {
    var searches = 0
    var offers = 0
    var dealsScored = 0
    var exceptional = 0

    mutating func count(_ completed: [SearchCompleted]) {
        searches += completed.count
        offers += completed.reduce(0) { $0 + Int($1.offerCount) }
    }

    mutating func count(_ deals: [Deal]) {
        dealsScored += deals.count
        exceptional += deals.count { $0.score.score >= 90 }
    }

    var summary: String {
        "\(searches) searches, \(offers) fares observed · \(dealsScored) deals scored (\(exceptional) at 90+)"
    }
}
