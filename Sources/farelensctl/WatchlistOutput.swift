import FareLensMessages
import Foundation

/// Watchlists as `watchlists` commands print them: one table row each, or
/// JSON objects whose absent values are null (not left out).
enum WatchlistOutput {
    /// One watchlist.
    struct Row: Encodable {
        let id: String
        let userId: String
        let origin: String
        let destination: String
        let dates: String
        let cabin: String
        let threshold: String?
        let mode: String
        let active: Bool
        let inactiveReason: String?
        let muteUntil: String?
        let lastPrice: String?
        let lastPriceMinorUnits: Int64?
        let currency: String?
        let change: String?
        let changeBasisPoints: Int?
        let checkedAt: String?
        let belowThreshold: Bool
        /// The last price in the threshold's currency, when the two differ: "≈ €89.47 at 0.91299187 (ECB 2024-01-04)".
        let comparedPrice: String?
        /// Set when the threshold's currency is not the prices' and the last check could not convert them: it was not compared.
        let thresholdWarning: String?
        /// A range's check: which trips it scanned (with a price or why none) and the cheapest.
        let scan: String?
        let tripsScanned: Int?
        let tripsInRange: Int?

        enum CodingKeys: String, CodingKey {
            case id, userId, origin, destination, dates, cabin, threshold, mode, active, inactiveReason, muteUntil
            case lastPrice, lastPriceMinorUnits, currency, change, changeBasisPoints, checkedAt, belowThreshold, comparedPrice, thresholdWarning
            case scan, tripsScanned, tripsInRange
        }

        /// The row of `watchlist`; a mute that ended before `now` is no mute.
        init(_ watchlist: Watchlist, now: Date = Date()) {
            let check: WatchlistCheck? = watchlist.hasLastCheck ? watchlist.lastCheck : nil
            let price: Money? = check.flatMap { $0.hasLowestPrice ? $0.lowestPrice : nil }
            let threshold: Money? = watchlist.hasPriceThreshold ? watchlist.priceThreshold : nil
            let nowMs = Int64(now.timeIntervalSince1970 * 1000)
            id = watchlist.watchlistID
            userId = watchlist.userID
            origin = watchlist.origin
            destination = watchlist.destination
            dates = watchlist.hasDates ? WatchlistOutput.datesText(watchlist.dates) : "-"
            cabin = WatchlistOutput.cabinName(watchlist.cabin)
            self.threshold = threshold?.formatted
            mode = WatchlistOutput.modeName(watchlist.alertMode)
            active = watchlist.active
            inactiveReason = watchlist.active ? nil : WatchlistOutput.reasonName(watchlist.inactiveReason)
            muteUntil = watchlist.muteUntilUnixMs > nowMs ? UserOutput.instant(watchlist.muteUntilUnixMs) : nil
            lastPrice = price?.formatted
            lastPriceMinorUnits = price?.minorUnits
            currency = price?.currency ?? threshold?.currency
            change = check.flatMap(WatchlistOutput.changeText)
            changeBasisPoints = check.flatMap { $0.hasChangeBasisPoints ? Int($0.changeBasisPoints) : nil }
            checkedAt = check.flatMap { $0.checkedAtUnixMs > 0 ? UserOutput.instant($0.checkedAtUnixMs) : nil }
            belowThreshold = check?.belowThreshold ?? false
            comparedPrice = check.flatMap { check in
                check.hasComparedPrice ? "≈ \(check.comparedPrice.formatted) at \(check.exchangeRate) (ECB \(check.exchangeRateDate))" : nil
            }
            thresholdWarning = comparedPrice == nil ? WatchlistOutput.currencyWarning(threshold: threshold, price: price) : nil
            scan = check.flatMap(WatchlistOutput.scanText)
            tripsScanned = scan == nil ? nil : check?.scannedPairs.count
            tripsInRange = scan == nil ? nil : check.map { Int($0.rangePairs) }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(userId, forKey: .userId)
            try container.encode(origin, forKey: .origin)
            try container.encode(destination, forKey: .destination)
            try container.encode(dates, forKey: .dates)
            try container.encode(cabin, forKey: .cabin)
            try container.encode(threshold, forKey: .threshold)
            try container.encode(mode, forKey: .mode)
            try container.encode(active, forKey: .active)
            try container.encode(inactiveReason, forKey: .inactiveReason)
            try container.encode(muteUntil, forKey: .muteUntil)
            try container.encode(lastPrice, forKey: .lastPrice)
            try container.encode(lastPriceMinorUnits, forKey: .lastPriceMinorUnits)
            try container.encode(currency, forKey: .currency)
            try container.encode(change, forKey: .change)
            try container.encode(changeBasisPoints, forKey: .changeBasisPoints)
            try container.encode(checkedAt, forKey: .checkedAt)
            try container.encode(belowThreshold, forKey: .belowThreshold)
            try container.encode(comparedPrice, forKey: .comparedPrice)
            try container.encode(thresholdWarning, forKey: .thresholdWarning)
            try container.encode(scan, forKey: .scan)
            try container.encode(tripsScanned, forKey: .tripsScanned)
            try container.encode(tripsInRange, forKey: .tripsInRange)
        }

        /// "active", "muted until …", "inactive (over tier limit)", "inactive (by user)".
        var state: String {
            if !active { return inactiveReason.map { "inactive (\($0.replacingOccurrences(of: "-", with: " ")))" } ?? "inactive" }
            return muteUntil.map { "muted until \($0)" } ?? "active"
        }
    }

    /// `watchlists list --json`.
    struct ListJSON: Encodable {
        let watchlists: [Row]
        let activeCount: Int
        let activeLimit: Int?

        enum CodingKeys: String, CodingKey { case watchlists, activeCount, activeLimit }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(watchlists, forKey: .watchlists)
            try container.encode(activeCount, forKey: .activeCount)
            try container.encode(activeLimit, forKey: .activeLimit)
        }
    }

    /// Prints one watchlist; with `thresholdCrossed` (`watchlists check`) also whether this check crossed the threshold.
    static func print(_ watchlist: Watchlist, json: Bool, thresholdCrossed: Bool? = nil) throws {
        let row = Row(watchlist)
        if json {
            if let thresholdCrossed {
                try CtlRun.printJSON(UserOutput.WithFlag(base: row, name: "thresholdCrossed", value: thresholdCrossed))
            } else {
                try CtlRun.printJSON(row)
            }
            return
        }
        Swift.print(table([row]).rendered)
        if let compared = row.comparedPrice, let threshold = row.threshold { Swift.print("last price \(compared), compared with the \(threshold) threshold") }
        if let warning = row.thresholdWarning { Swift.print("warning: \(warning)") }
        if let scan = row.scan { Swift.print(scan) }
        if thresholdCrossed == true { Swift.print("threshold crossed") }
    }

    /// Prints a user's watchlists and how many are active of how many allowed.
    static func printList(_ response: ListWatchlistsResponse, json: Bool) throws {
        let rows = response.watchlists.map { Row($0) }
        let limit = response.hasActiveLimit ? Int(response.activeLimit) : nil
        if json {
            try CtlRun.printJSON(ListJSON(watchlists: rows, activeCount: Int(response.activeCount), activeLimit: limit))
            return
        }
        Swift.print(table(rows).rendered)
        for row in rows { if let warning = row.thresholdWarning { Swift.print("warning: \(row.id): \(warning)") } }
        Swift.print(limit.map { "\(response.activeCount) active of \($0) allowed" } ?? "\(response.activeCount) active, no limit")
    }

    /// "the threshold is in EUR but this route is priced in USD: …" when the two differ.
    static func currencyWarning(threshold: Money?, price: Money?) -> String? {
        guard let threshold, let price, !price.currency.isEmpty, threshold.currency != price.currency else { return nil }
        return "the threshold is in \(threshold.currency) but this route is priced in \(price.currency), and the last check could not convert the price (no exchange rate): it was not compared"
    }

    static func table(_ rows: [Row]) -> TextTable {
        var table = TextTable("ID", "ROUTE", "DATES", "CABIN", "THRESHOLD", "MODE", "STATE", "LAST PRICE", "CHANGE", "CHECKED")
        for row in rows {
            table.add(row.id, "\(row.origin)→\(row.destination)", row.dates, row.cabin, row.threshold ?? "-", row.mode, row.state,
                      row.lastPrice ?? "-", row.change ?? "-", row.checkedAt ?? "-")
        }
        return table
    }

    /// "any 7–14 d", "one-way any", "2026-12-01 → 2026-12-15", "2026-12-01 one-way".
    static func datesText(_ dates: WatchlistDates) -> String {
        switch dates.kind {
        case .flexible(let flexible)?:
            flexibleText(flexible)
        case .fixed(let fixed)?:
            fixed.hasReturnDate ? "\(dateText(fixed.departureDate)) → \(dateText(fixed.returnDate))" : "\(dateText(fixed.departureDate)) one-way"
        case nil:
            "-"
        }
    }

    /// "any 7–14 d", "one-way any"; with a range "any 5–9 d 2027-03-01..2027-03-31" or "weekends 2027-03-01..2027-03-31".
    static func flexibleText(_ flexible: FlexibleDates) -> String {
        let length = flexible.minTripDays == 0 && flexible.maxTripDays == 0 ? "one-way any" : "any \(flexible.minTripDays)–\(flexible.maxTripDays) d"
        guard flexible.hasEarliestDeparture, flexible.hasLatestReturn else { return length }
        let range = "\(dateText(flexible.earliestDeparture))..\(dateText(flexible.latestReturn))"
        guard flexible.weekendsOnly else { return "\(length) \(range)" }
        return flexible.maxTripDays == 0 ? "weekends \(range)" : "weekends \(flexible.minTripDays)–\(flexible.maxTripDays) d \(range)"
    }

    /// "cheapest 2027-03-05 → 2027-03-12 of 8 trips scanned (31 in the range)"; nil for a check that scanned no range.
    static func scanText(_ check: WatchlistCheck) -> String? {
        guard !check.scannedPairs.isEmpty else { return nil }
        let trip = check.hasReturnDate ? "\(dateText(check.departureDate)) → \(dateText(check.returnDate))" : "\(dateText(check.departureDate)) one-way"
        let priced = check.scannedPairs.filter(\.hasLowestPrice).count
        return "cheapest \(trip) of \(check.scannedPairs.count) trips scanned (\(priced) with fares; \(check.rangePairs) in the range)"
    }

    static func dateText(_ date: LocalDate) -> String {
        CalendarDate(date)?.description ?? "\(date.year)-\(date.month)-\(date.day)"
    }

    /// "-$12.50 (-3.1%)", "+€4.00 (+1.0%)"; nil on a first check (no change yet).
    static func changeText(_ check: WatchlistCheck) -> String? {
        guard check.hasChange else { return nil }
        let money = (check.change.minorUnits > 0 ? "+" : "") + check.change.formatted
        guard check.hasChangeBasisPoints else { return money }
        return "\(money) (\(percent(check.changeBasisPoints)))"
    }

    /// Basis points as a signed percentage with one decimal, rounded half away from zero: -312 → "-3.1%".
    static func percent(_ basisPoints: Int32) -> String {
        let tenths = (Int(basisPoints.magnitude) + 5) / 10
        let sign = basisPoints < 0 ? "-" : basisPoints > 0 ? "+" : ""
        return "\(sign)\(tenths / 10).\(tenths % 10)%"
    }

    static func cabinName(_ cabin: Cabin) -> String {
        switch cabin {
        case .premiumEconomy: "premium-economy"
        case .business: "business"
        case .first: "first"
        default: "economy"  // UNSPECIFIED means ECONOMY
        }
    }

    static func modeName(_ mode: AlertMode) -> String {
        switch mode {
        case .dailyDigest: "digest"
        case .priceDropAndDigest: "both"
        default: "drop"  // UNSPECIFIED means PRICE_DROP
        }
    }

    static func reasonName(_ reason: Watchlist.InactiveReason) -> String? {
        switch reason {
        case .byUser: "by-user"
        case .overTierLimit: "over-tier-limit"
        default: nil
        }
    }
}
