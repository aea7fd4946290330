import FareLensBus
import FareLensMessages
import FareLensServiceKit
import FareLensStore
import Foundation

/// From events to candidates: who an event may alert and how much it matters.
extension AlertsService {
    /// SPEC § 2's watchlist factor: a candidate on a route the user watches
    /// ranks 1.2 times higher.
    static let watchlistFactor = 1.2

    /// Candidates competing for a user's cap are ranked by queue score. A
    /// threshold crossing is what the user asked for: it ranks like a perfect
    /// deal on a watchlist (100 × 1.2).
    static let thresholdQueueScore = 100 * watchlistFactor

    /// The candidates of a batch of the decision stream, one pending event
    /// per delivery in the order they arrived, whatever its topic:
    /// the one user of a watchlist event or trial ending
    /// (``pendingUserEvent(_:key:)``) or an exceptional deal's users
    /// (``pendingEvent(for:key:)-(ExceptionalDeal,_)``). Nil when cancelled
    /// while a service an exceptional deal needs was away (the batch is
    /// decided later).
    func pendingEvents(_ batch: [Delivery<any BusEvent>]) async -> [PendingEvent]? {
        var pending: [PendingEvent] = []
        pending.reserveCapacity(batch.count)
        for delivery in batch {
            let key = InboxKey(delivery.metadata.id)
            learnPlaces(carriedBy: delivery.event)
            if let event = Self.pendingUserEvent(delivery.event, key: key) {
                pending.append(event)
            } else if let deal = delivery.event as? ExceptionalDeal {
                guard let event = await pendingEvent(for: deal, key: key) else { return nil }
                pending.append(event)
            } else {
                // Unreachable: the stream subscribes to the decision inputs only (decisionInputTypes), one per topic.
                logger.error("an event of an unexpected type reached the decision stream; not decided", metadata: ["type": "\(delivery.metadata.typeName)", "event": "\(delivery.metadata.id)"])
            }
        }
        return pending
    }

    /// What ``pendingEvent(for:key:)-(any BusEvent,_)`` made of an event.
    enum PendingEventOutcome {
        case pending(PendingEvent)
        /// Cancelled while a service an exceptional deal needs was away.
        case cancelled
        /// Not one of ``decisionInputs``' types.
        case notAnInput
    }

    /// One event's candidates, as ``pendingEvents(_:)`` makes them (for a
    /// retried set-aside event).
    func pendingEvent(for event: any BusEvent, key: InboxKey) async -> PendingEventOutcome {
        learnPlaces(carriedBy: event)
        if let pending = Self.pendingUserEvent(event, key: key) { return .pending(pending) }
        guard let deal = event as? ExceptionalDeal else { return .notAnInput }
        return await pendingEvent(for: deal, key: key).map { .pending($0) } ?? .cancelled
    }

    /// The candidate of an event about one user — a threshold crossing, a
    /// price change, a trial ending — or nil for an event of another type.
    static func pendingUserEvent(_ event: any BusEvent, key: InboxKey) -> PendingEvent? {
        switch event {
        case let crossing as ThresholdCrossed:
            PendingEvent(key: key, consumer: crossingConsumer, candidates: [candidate(for: crossing)])
        case let change as PriceChanged:
            PendingEvent(key: key, consumer: priceConsumer, candidates: candidate(for: change).map { [$0] } ?? [])
        case let ending as TrialEnding:
            PendingEvent(key: key, consumer: trialConsumer, candidates: candidate(for: ending).map { [$0] } ?? [])
        default:
            nil
        }
    }

    /// The user an event names, empty for an exceptional deal (which names none).
    static func userID(of event: any BusEvent) -> String {
        switch event {
        case let crossing as ThresholdCrossed: crossing.userID
        case let change as PriceChanged: change.userID
        case let ending as TrialEnding: ending.userID
        default: ""
        }
    }

    /// An exceptional deal: every user whose preferred airports include the
    /// deal's origin or its metro, queue score `dealScore × (1.2 if the user
    /// watches the deal's route) × (1 + airport weight)` (SPEC § 2's smart
    /// queue). Who prefers an airport and who watches a route are read from
    /// what alerts keeps of subscription's and watchlist's events
    /// (``KeptAudience``): neither is asked. A watchlist matches either end
    /// as its airport or its metro (a watchlist LON→NRT watches a deal LHR→NRT).
    ///
    /// The deal's ends' cities and metros come with it (its caller learnt them: ``learnPlaces(carriedBy:)``);
    /// for a deal from before they did, while search's directory cannot
    /// answer, or while alerts' own database cannot be read, this waits and
    /// tries again every second; nil when cancelled meanwhile (the batch is
    /// decided later).
    func pendingEvent(for event: ExceptionalDeal, key: InboxKey) async -> PendingEvent? {
        let deal = event.deal
        guard await learnPlaces([deal.origin, deal.destination]) else { return nil }
        let audience = self.audience
        let origins = [deal.origin] + (metro(of: deal.origin).map { [$0] } ?? [])
        let destinations = [deal.destination] + (metro(of: deal.destination).map { [$0] } ?? [])
        let read = await retryingEverySecond("exceptional-deal audience unreadable; alert decisions wait", level: .error, metadata: ["deal": "\(deal.dealID)"]) {
            () async throws -> ([PreferredAirportUser], Set<String>) in
            let users = try await audience.preferring(deal.origin, orMetro: origins.dropFirst().first)
            return (users, users.isEmpty ? [] : try await audience.watchers(origins: origins, destinations: destinations, cabin: deal.cabin))
        }
        guard case .success(let (users, watchers))? = read else { return nil }
        let candidates = users.map { user in Self.candidate(for: deal, user: user, watchesRoute: watchers.contains(user.userID)) }
        return PendingEvent(key: key, consumer: Self.dealConsumer, candidates: candidates)
    }

    /// Trial endings: a notice the day before (SPEC § 4); the end itself
    /// alerts nothing (the tier change says it), but is recorded as handled.
    static func candidate(for event: TrialEnding) -> AlertCandidate? {
        guard event.stage == .oneDayLeft else { return nil }
        var candidate = AlertCandidate(userID: event.userID, kind: .trialEnding, origin: "", destination: "", price: Money(), queueScore: 0)
        if event.trialEndsAtUnixMs > 0 { candidate.expiresAt = Date(unixMilliseconds: event.trialEndsAtUnixMs) }
        return candidate
    }

    static func candidate(for deal: Deal, user: PreferredAirportUser, watchesRoute: Bool) -> AlertCandidate {
        var candidate = AlertCandidate(
            userID: user.userID, kind: .exceptionalDeal, origin: deal.origin, destination: deal.destination,
            price: deal.price, queueScore: Double(deal.score.score) * (watchesRoute ? watchlistFactor : 1) * (1 + user.weight))
        candidate.dealID = deal.dealID
        candidate.dealScore = deal.score.score
        candidate.trulyExceptional = deal.score.hotDeal
        candidate.discountBasisPoints = deal.score.discountBasisPoints
        if deal.expiresAtUnixMs > 0 { candidate.expiresAt = Date(unixMilliseconds: deal.expiresAtUnixMs) }
        candidate.departureDate = CalendarDate(deal.departureDate)
        candidate.returnDate = deal.hasReturnDate ? CalendarDate(deal.returnDate) : nil
        candidate.cabin = deal.cabin == .unspecified ? .economy : deal.cabin
        candidate.simulated = deal.simulated
        return candidate
    }

    static func candidate(for event: ThresholdCrossed) -> AlertCandidate {
        var candidate = AlertCandidate(
            userID: event.userID, kind: .thresholdCrossed, origin: event.origin, destination: event.destination,
            price: event.check.lowestPrice, queueScore: thresholdQueueScore)
        candidate.watchlistID = event.watchlistID
        candidate.threshold = event.priceThreshold
        if event.check.hasComparedPrice {
            candidate.comparedPrice = event.check.comparedPrice
            candidate.exchangeRateDate = event.check.exchangeRateDate
        }
        if event.check.hasChangeBasisPoints { candidate.discountBasisPoints = -event.check.changeBasisPoints }
        Self.fill(&candidate, check: event.check, cabin: event.cabin, mode: event.alertMode, muteUntil: event.muteUntilUnixMs)
        return candidate
    }

    /// Price changes: a candidate when the price dropped. A rise, a first
    /// check, or a check already at or below the threshold (its crossing is
    /// the alert) is no candidate and is not recorded. Queue score of a
    /// drop: `(60 + percent dropped, at most 40) × 1.2`, so a 20% drop ranks
    /// like an 80-point deal on a watchlist.
    static func candidate(for event: PriceChanged) -> AlertCandidate? {
        let check = event.check
        guard check.hasChangeBasisPoints, check.changeBasisPoints < 0, !check.belowThreshold else { return nil }
        let drop = -check.changeBasisPoints
        var candidate = AlertCandidate(
            userID: event.userID, kind: .priceDrop, origin: event.origin, destination: event.destination,
            price: check.lowestPrice, queueScore: (60 + min(40, Double(drop) / 100)) * watchlistFactor)
        candidate.watchlistID = event.watchlistID
        candidate.discountBasisPoints = drop
        candidate.belowDropMinimum = drop < AlertPolicy.minimumDropBasisPoints
        if event.hasPreviousPrice { candidate.previousPrice = event.previousPrice }
        Self.fill(&candidate, check: check, cabin: event.cabin, mode: event.alertMode, muteUntil: event.muteUntilUnixMs)
        return candidate
    }

    private static func fill(_ candidate: inout AlertCandidate, check: WatchlistCheck, cabin: Cabin, mode: AlertMode, muteUntil: Int64) {
        candidate.departureDate = check.hasDepartureDate ? CalendarDate(check.departureDate) : nil
        candidate.returnDate = check.hasReturnDate ? CalendarDate(check.returnDate) : nil
        candidate.cabin = cabin == .unspecified ? .economy : cabin
        candidate.digestOnly = mode == .dailyDigest
        candidate.simulated = check.simulated
        if muteUntil > 0 { candidate.watchlistMutedUntil = Date(unixMilliseconds: muteUntil) }
    }
}

/// One event's candidates, with the inbox key that makes its effect happen once.
struct PendingEvent: Sendable {
    var key: InboxKey
    var consumer: String
    var candidates: [AlertCandidate]
}

/// The events a batch was made from, by inbox key: the content a set-aside
/// event keeps (``AlertsService/setAside(_:content:failure:)``). It holds the
/// batch's deliveries as they are, so the batch pays nothing for it; the
/// rare lookup scans them.
struct EventContents: Sendable {
    private var deliveries: [Delivery<any BusEvent>] = []
    private var events: [InboxKey: any BusEvent] = [:]

    /// No contents: an event set aside is kept without (not retriable).
    static let none = EventContents()

    private init() {}

    /// The contents of a batch of the decision stream.
    init(_ deliveries: [Delivery<any BusEvent>]) { self.deliveries = deliveries }

    /// Given contents (a retry, tests).
    init(_ events: [InboxKey: any BusEvent]) { self.events = events }

    func event(for key: InboxKey) -> (any BusEvent)? {
        events[key] ?? deliveries.first { InboxKey($0.metadata.id) == key }?.event
    }
}
