import ArgumentParser
import FareLensMessages
import Foundation

/// `farelensctl watchlists add|list|show|update|rm|mute|check`: a user's watchlists (the watchlist service).
struct WatchlistsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watchlists",
        abstract: "Create, list, change, mute, check and delete a user's watchlists (the watchlist service).",
        discussion: "Every command names the owner with --user: the service answers only for that user's own watchlists.",
        subcommands: [Add.self, List.self, Show.self, Update.self, Remove.self, Mute.self, Check.self]
    )

    /// `watchlists add`: watch a route.
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Watch a route for a user: alerts on price drops and a threshold, or a daily digest.",
            discussion: "Example: farelensctl watchlists add --user u-0f3a9c2b7d1e4a55 JFK NRT --any-dates 7-14 --threshold 450.00USD --cabin economy --mode both"
        )
        @Option(name: .long, help: "The owner's user id (u-…).") var user: String
        @Argument(help: "Origin IATA airport or metro code, e.g. JFK or NYC.") var origin: String
        @Argument(help: "Destination IATA airport or metro code.") var destination: String
        @Option(name: .long, help: "Any dates: trip length in days as MIN-MAX, e.g. 7-14, or one-way (also 0-0). The default without --from is 7-14.")
        var anyDates: String?
        @Option(name: .customLong("from"), help: "Fixed departure date, YYYY-MM-DD (one-way unless --to is given).") var departure: String?
        @Option(name: .customLong("to"), help: "Fixed return date, YYYY-MM-DD (needs --from).") var returnDate: String?
        @Option(name: .long, help: "Any dates within a range: the earliest departure and the latest return, YYYY-MM-DD..YYYY-MM-DD (the trip length from --any-dates).")
        var within: String?
        @Flag(name: .long, help: "With --within: weekend trips only, out on a Friday or Saturday and back on the Sunday or Monday after.") var weekends = false
        @Option(name: .long, parsing: .unconditional, help: "Alert when the price falls to or below this amount, e.g. 450.00USD.") var threshold: String?
        @Option(name: .long, help: "economy, premium-economy, business or first.") var cabin: String = "economy"
        @Option(name: .long, help: "drop (immediate alerts on drops and the threshold), digest (one daily digest) or both.") var mode: String = "drop"
        @OptionGroup var options: ConnectionOptions

        func validate() throws { _ = try makeRequest() }

        func run() async throws {
            let response = try await CtlRun.request(options, try makeRequest())
            try WatchlistOutput.print(response.watchlist, json: options.json)
        }

        func makeRequest() throws -> CreateWatchlistRequest {
            var request = CreateWatchlistRequest()
            request.userID = user
            request.origin = origin.uppercased()
            request.destination = destination.uppercased()
            request.dates = try WatchlistArguments.dates(anyDates: anyDates, from: departure, to: returnDate, within: within, weekends: weekends)
            request.cabin = try SearchCommand.cabin(cabin)
            if let threshold { request.priceThreshold = try WatchlistArguments.money(threshold) }
            request.alertMode = try WatchlistArguments.mode(mode)
            return request
        }
    }

    /// `watchlists list`: a user's watchlists, newest first.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a user's watchlists, newest first, with their last price and change.",
            discussion: "Example: farelensctl watchlists list --user u-0f3a9c2b7d1e4a55 --all"
        )
        @Option(name: .long, help: "The owner's user id (u-…).") var user: String
        @Flag(name: .long, help: "Also list inactive watchlists (switched off, or over the tier's limit).") var all = false
        @OptionGroup var options: ConnectionOptions

        func run() async throws {
            var request = ListWatchlistsRequest()
            request.userID = user
            request.includeInactive = all
            let response = try await CtlRun.request(options, request)
            try WatchlistOutput.printList(response, json: options.json)
        }
    }

    /// `watchlists show`: one watchlist.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show one of a user's watchlists.",
            discussion: "Example: farelensctl watchlists show --user u-0f3a9c2b7d1e4a55 w-7c1d2e3f4a5b6c7d --json"
        )
        @OptionGroup var target: WatchlistTarget
        @OptionGroup var options: ConnectionOptions

        func run() async throws {
            var request = GetWatchlistRequest()
            request.userID = target.user
            request.watchlistID = target.watchlist
            let response = try await CtlRun.request(options, request)
            try WatchlistOutput.print(response.watchlist, json: options.json)
        }
    }

    /// `watchlists update`: change what a watchlist watches or how it alerts, keeping its id.
    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change one of a user's watchlists in place: route, dates, cabin, threshold, alert mode, on or off.",
            discussion: """
                Only what is given changes; the id stays. A new route, dates or cabin forget the last price (it was another \
                trip's); a new or removed threshold re-arms its alert. --activate is refused when the tier allows no more.
                Example: farelensctl watchlists update --user u-0f3a9c2b7d1e4a55 w-7c1d2e3f4a5b6c7d --threshold 420.00USD --mode both
                """
        )
        @OptionGroup var target: WatchlistTarget
        @Option(name: .long, help: "New origin IATA airport or metro code.") var origin: String?
        @Option(name: .long, help: "New destination IATA airport or metro code.") var destination: String?
        @Option(name: .long, help: "New dates: any dates with a trip length in days as MIN-MAX, e.g. 7-14, or one-way.")
        var anyDates: String?
        @Option(name: .customLong("from"), help: "New dates: a fixed departure, YYYY-MM-DD (one-way unless --to is given).") var departure: String?
        @Option(name: .customLong("to"), help: "New dates: a fixed return, YYYY-MM-DD (needs --from).") var returnDate: String?
        @Option(name: .long, help: "New dates: any dates within a range, YYYY-MM-DD..YYYY-MM-DD (the trip length from --any-dates).") var within: String?
        @Flag(name: .long, help: "With --within: weekend trips only.") var weekends = false
        @Option(name: .long, help: "New cabin: economy, premium-economy, business or first.") var cabin: String?
        @Option(name: .long, parsing: .unconditional, help: "New threshold, e.g. 420.00USD.") var threshold: String?
        @Flag(name: .long, help: "Remove the threshold.") var noThreshold = false
        @Option(name: .long, help: "New alert mode: drop, digest or both.") var mode: String?
        @Flag(name: .long, help: "Switch the watchlist on (checked on its schedule again).") var activate = false
        @Flag(name: .long, help: "Switch the watchlist off (kept, not checked).") var deactivate = false
        @OptionGroup var options: ConnectionOptions

        func validate() throws { _ = try makeRequest() }

        func run() async throws {
            let response = try await CtlRun.request(options, try makeRequest())
            try WatchlistOutput.print(response.watchlist, json: options.json)
        }

        /// The request that changes what was given, and nothing else.
        func makeRequest() throws -> UpdateWatchlistRequest {
            var request = UpdateWatchlistRequest()
            request.userID = target.user
            request.watchlistID = target.watchlist
            if let origin { request.origin = origin.uppercased() }
            if let destination { request.destination = destination.uppercased() }
            if anyDates != nil || departure != nil || returnDate != nil || within != nil || weekends {
                request.dates = try WatchlistArguments.dates(anyDates: anyDates, from: departure, to: returnDate, within: within, weekends: weekends)
            }
            if let cabin { request.cabin = try SearchCommand.cabin(cabin) }
            guard threshold == nil || !noThreshold else { throw ValidationError("--threshold and --no-threshold are alternatives: give one or the other") }
            if let threshold { request.priceThreshold = try WatchlistArguments.money(threshold) }
            if noThreshold { request.clearPriceThreshold_p = true }
            if let mode { request.alertMode = try WatchlistArguments.mode(mode) }
            guard !(activate && deactivate) else { throw ValidationError("--activate and --deactivate are alternatives: give one or the other") }
            if activate || deactivate { request.active = activate }
            guard request.hasOrigin || request.hasDestination || request.hasDates || request.hasCabin || request.hasPriceThreshold
                || noThreshold || request.hasAlertMode || request.hasActive else {
                throw ValidationError("nothing to change: give at least one of --origin, --destination, --any-dates, --from, --within, --cabin, --threshold, --no-threshold, --mode, --activate, --deactivate")
            }
            return request
        }
    }

    /// `watchlists rm`: delete a watchlist for good.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm",
            abstract: "Delete one of a user's watchlists for good.",
            discussion: "Example: farelensctl watchlists rm --user u-0f3a9c2b7d1e4a55 w-7c1d2e3f4a5b6c7d"
        )
        @OptionGroup var target: WatchlistTarget
        @OptionGroup var options: ConnectionOptions

        func run() async throws {
            var request = DeleteWatchlistRequest()
            request.userID = target.user
            request.watchlistID = target.watchlist
            let response = try await CtlRun.request(options, request)
            if options.json {
                try CtlRun.printJSON(["deleted": response.watchlistID])
            } else {
                print("deleted \(response.watchlistID)")
            }
        }
    }

    /// `watchlists mute`: mute for 7 or 30 days, or unmute.
    struct Mute: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mute a watchlist's alerts for 7 or 30 days from now; --days 0 unmutes.",
            discussion: "Example: farelensctl watchlists mute --user u-0f3a9c2b7d1e4a55 w-7c1d2e3f4a5b6c7d --days 7"
        )
        @OptionGroup var target: WatchlistTarget
        @Option(name: .long, help: "7 or 30 days from now; 0 unmutes.") var days: Int
        @OptionGroup var options: ConnectionOptions

        func validate() throws {
            guard [0, 7, 30].contains(days) else { throw ValidationError("--days must be 7, 30 or 0 (unmute), not \(days)") }
        }

        func run() async throws {
            var request = UpdateWatchlistRequest()
            request.userID = target.user
            request.watchlistID = target.watchlist
            request.muteDays = Int32(days)
            let response = try await CtlRun.request(options, request)
            try WatchlistOutput.print(response.watchlist, json: options.json)
        }
    }

    /// `watchlists check`: check now instead of waiting for the schedule.
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check an active watchlist now (a search), as the schedule would; publishes the same events.",
            discussion: "Example: farelensctl watchlists check --user u-0f3a9c2b7d1e4a55 w-7c1d2e3f4a5b6c7d"
        )
        @OptionGroup var target: WatchlistTarget
        @OptionGroup var options: ConnectionOptions

        func run() async throws {
            var request = CheckWatchlistNowRequest()
            request.userID = target.user
            request.watchlistID = target.watchlist
            let response = try await CtlRun.request(options, request)
            try WatchlistOutput.print(response.watchlist, json: options.json, thresholdCrossed: response.thresholdCrossed)
        }
    }
}

/// Command-line words of `watchlists add` as messages.
enum WatchlistArguments {
    /// `--any-dates MIN-MAX|one-way` (optionally `--within D1..D2`, `--weekends`), or
    /// `--from D [--to D2]`; none of them is any dates 7–14.
    static func dates(anyDates: String?, from departure: String?, to returnDate: String?, within: String? = nil, weekends: Bool = false) throws -> WatchlistDates {
        var dates = WatchlistDates()
        guard !weekends || within != nil else { throw ValidationError("--weekends needs --within: the range the weekends are in") }
        if let departure {
            guard anyDates == nil, within == nil else { throw ValidationError("--any-dates/--within and --from/--to are alternatives: give one or the other") }
            var fixed = FixedDates()
            fixed.departureDate = try date(departure, "--from")
            if let returnDate { fixed.returnDate = try date(returnDate, "--to") }
            dates.fixed = fixed
        } else {
            guard returnDate == nil else { throw ValidationError("--to needs --from: a fixed trip departs on --from and returns on --to") }
            // Weekends without a length: any weekend trip (0-0 means that there, not one-way).
            var flexible = try flexible(anyDates ?? (weekends ? "0-0" : "7-14"))
            if let within {
                let ends = within.components(separatedBy: "..")
                guard ends.count == 2 else { throw ValidationError("--within must be two dates as YYYY-MM-DD..YYYY-MM-DD, not '\(within)'") }
                flexible.earliestDeparture = try date(ends[0], "--within's start")
                flexible.latestReturn = try date(ends[1], "--within's end")
                flexible.weekendsOnly = weekends
            }
            dates.flexible = flexible
        }
        return dates
    }

    /// "7-14" → trips of 7 to 14 days; "one-way" or "0-0" → one-way.
    static func flexible(_ text: String) throws -> FlexibleDates {
        var flexible = FlexibleDates()
        if text.lowercased() == "one-way" { return flexible }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy(isDigits), let low = Int32(parts[0]), let high = Int32(parts[1]), low <= high else {
            throw ValidationError("--any-dates must be trip days as MIN-MAX (e.g. 7-14) or one-way, not '\(text)'")
        }
        (flexible.minTripDays, flexible.maxTripDays) = (low, high)
        return flexible
    }

    static func date(_ text: String, _ name: String) throws -> LocalDate {
        guard let date = CalendarDate(iso: text) else { throw ValidationError("\(name) must be a date as YYYY-MM-DD, not '\(text)'") }
        return date.message
    }

    /// "450.00USD", "450USD" or "450.00 USD" → Money, exactly, in the
    /// currency's own minor units (at most as many decimals as it has).
    static func money(_ text: String) throws -> Money {
        let invalid = ValidationError("--threshold must be an amount and a currency code like 450.00USD (at most the currency's decimals), not '\(text)'")
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let currency = String(trimmed.suffix(3)).uppercased()
        guard trimmed.count > 3, currency.allSatisfy({ $0.isASCII && $0.isLetter }) else { throw invalid }
        let parts = trimmed.dropLast(3).trimmingCharacters(in: .whitespaces).split(separator: ".", omittingEmptySubsequences: false)
        let exponent = Money.exponent(of: currency)
        let fraction = parts.count == 2 ? parts[1] : ""
        guard (1 ... 2).contains(parts.count), isDigits(parts[0]), parts.count == 1 || isDigits(fraction), fraction.count <= exponent else { throw invalid }
        let digits = String(parts[0]) + String(fraction) + String(repeating: "0", count: exponent - fraction.count)
        guard let minorUnits = Int64(digits) else { throw invalid }  // nil only on overflow: digits are checked above
        return Money(minorUnits: minorUnits, currency: currency)
    }

    static func mode(_ text: String) throws -> AlertMode {
        switch text.lowercased() {
        case "drop": .priceDrop
        case "digest": .dailyDigest
        case "both": .priceDropAndDigest
        default: throw ValidationError("--mode must be drop, digest or both, not '\(text)'")
        }
    }

    /// One or more ASCII digits and nothing else.
    static func isDigits(_ text: Substring) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isASCII && $0.isNumber }
    }
}

/// Which watchlist a command acts on: the owner (the service checks
/// ownership) and the watchlist id.
struct WatchlistTarget: ParsableArguments {
    @Option(name: .long, help: "The owner's user id (u-…).") var user: String
    @Argument(help: "The watchlist id (w-…).") var watchlist: String
}
