import FareLensMessages
import Foundation

/// A possible alert for one user, before the policy decides: what it is
/// about, how much it matters (`queueScore`) and what the watchlist behind it
/// asked for. Built from `ExceptionalDeal`, `ThresholdCrossed` and
/// `PriceChanged` (see `AlertsService+Intake.swift`).
struct AlertCandidate: Sendable, Equatable {
    var userID: String
    var kind: AlertKind
    /// IATA codes of the route.
    var origin: String
    var destination: String
    /// The deal behind it (exceptional deals); empty otherwise.
    var dealID = ""
    /// The watchlist behind it (threshold crossings and drops); empty otherwise.
    var watchlistID = ""
    /// The price alerted on, per person.
    var price: Money
    /// The deal's score, 0 when the alert did not come from a scored deal.
    var dealScore: Int32 = 0
    /// Ranks candidates competing for the day's cap: higher wins.
    var queueScore: Double
    /// More than 40% below the 90-day average: the one kind that may break quiet hours, once a local day.
    var trulyExceptional = false
    /// Percent below the 90-day average, in basis points (deals); the drop since the last check (price drops).
    var discountBasisPoints: Int32 = 0
    /// When the deal leaves the feed; nil when unknown.
    var expiresAt: Date?
    /// Threshold crossings: the watchlist's threshold.
    var threshold: Money?
    /// A threshold crossing's price in the threshold's currency, when the fare was priced in another
    /// (the watchlist compared them converted), and the day of the rate used.
    var comparedPrice: Money?
    var exchangeRateDate = ""
    /// Price drops: the previous check's price.
    var previousPrice: Money?
    /// The price in the recipient's currency at the ECB rate of `approximateRateDate`, when they chose
    /// one other than the fare's (exceptional deals and price drops; issue #60); nil otherwise.
    var approximatePrice: Money?
    var approximateRateDate = ""
    var departureDate: CalendarDate?
    var returnDate: CalendarDate?
    var cabin: Cabin = .economy
    /// The watchlist is muted until then (its own setting, from the watchlist service).
    var watchlistMutedUntil: Date?
    /// The watchlist asked for the daily digest only.
    var digestOnly = false
    /// The fare came from the simulated market (every screen says so).
    var simulated = false
    /// A price drop too small to alert on (see ``AlertPolicy/minimumDropBasisPoints``).
    var belowDropMinimum = false
    /// Its wording, written before the deciding transaction when it does not
    /// depend on the instant of the decision (``AlertWording/instantFreeContent(for:city:)``);
    /// nil: written in the transaction.
    var presetContent: AlertContent?

    /// The route as shown: "LIS→LON".
    var route: String { "\(origin)→\(destination)" }
}
