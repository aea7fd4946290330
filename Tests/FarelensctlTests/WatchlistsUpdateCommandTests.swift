import ArgumentParser
import FareLensMessages
import Testing
@testable import farelensctl

/// `farelensctl watchlists update`: only what is given is sent; contradictions are refused before anything is sent.
@Suite("farelensctl watchlists update")
struct WatchlistsUpdateCommandTests {
    func request(_ arguments: [String]) throws -> UpdateWatchlistRequest {
        let command = try FareLensCtl.parseAsRoot(["watchlists", "update", "--user", "u-1", "w-1"] + arguments)
        return try #require(command as? WatchlistsCommand.Update).makeRequest()
    }

    func refusal(_ arguments: [String]) -> String? {
        do {
            _ = try FareLensCtl.parseAsRoot(["watchlists", "update", "--user", "u-1", "w-1"] + arguments)
            return nil
        } catch {
            return FareLensCtl.message(for: error)
        }
    }

    @Test("a new threshold and mode: only those two fields are set")
    func onlyWhatIsGiven() throws {
        let update = try request(["--threshold", "420.00USD", "--mode", "both"])
        #expect(update.userID == "u-1" && update.watchlistID == "w-1")
        #expect(update.hasPriceThreshold && update.priceThreshold.minorUnits == 42_000 && update.priceThreshold.currency == "USD")
        #expect(update.hasAlertMode && update.alertMode == .priceDropAndDigest)
        #expect(!update.hasOrigin && !update.hasDestination && !update.hasDates && !update.hasCabin && !update.hasActive && !update.hasMuteDays)
        #expect(!update.clearPriceThreshold_p)
    }

    @Test("route, fixed dates and cabin; --no-threshold clears; --deactivate and --activate set active")
    func theOtherFields() throws {
        let trip = try request(["--origin", "lis", "--destination", "nrt", "--from", "2027-03-01", "--to", "2027-03-15", "--cabin", "business"])
        #expect(trip.origin == "LIS" && trip.destination == "NRT" && trip.cabin == .business)
        #expect(trip.dates.fixed.departureDate.day == 1 && trip.dates.fixed.returnDate.day == 15)
        let flexible = try request(["--any-dates", "one-way"])
        #expect(flexible.hasDates && flexible.dates.flexible.maxTripDays == 0)
        let cleared = try request(["--no-threshold"])
        #expect(cleared.clearPriceThreshold_p && !cleared.hasPriceThreshold)
        let off = try request(["--deactivate"])
        #expect(off.hasActive && !off.active)
        let on = try request(["--activate"])
        #expect(on.hasActive && on.active)
    }

    @Test("refused before sending: nothing to change, --threshold with --no-threshold, --activate with --deactivate, a bad mode, cabin, amount or date", arguments: [
        ([], "nothing to change"),
        (["--threshold", "400USD", "--no-threshold"], "--threshold and --no-threshold"),
        (["--activate", "--deactivate"], "--activate and --deactivate"),
        (["--mode", "loud"], "--mode must be drop, digest or both"),
        (["--cabin", "steerage"], "steerage"),
        (["--threshold", "4.005USD"], "--threshold must be an amount"),
        // A value starting with "-" is the option's value, refused for what it is (not "Missing value for '--threshold'").
        (["--threshold", "-5GBP"], "--threshold must be an amount and a currency code like 450.00USD (at most the currency's decimals), not '-5GBP'"),
        (["--from", "2027-02-30"], "--from must be a date"),
        (["--to", "2027-03-15"], "--to needs --from"),
        (["--any-dates", "14-7"], "--any-dates must be trip days"),
    ] as [([String], String)])
    func refusals(arguments: [String], message: String) {
        let said = refusal(arguments)
        #expect(said?.contains(message) == true, "\(arguments): \(said ?? "parsed")")
    }
}
