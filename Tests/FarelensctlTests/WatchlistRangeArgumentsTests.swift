import ArgumentParser
import FareLensMessages
import Testing
@testable import farelensctl

/// `watchlists add|update --within START..END [--weekends]`: flexible dates within a range (issue #60).
@Suite("farelensctl watchlists: --within and --weekends")
struct WatchlistRangeArgumentsTests {
    func add(_ arguments: [String]) throws -> CreateWatchlistRequest {
        let command = try FareLensCtl.parseAsRoot(["watchlists", "add", "--user", "u-1", "JFK", "NRT"] + arguments)
        return try #require(command as? WatchlistsCommand.Add).makeRequest()
    }

    func refusal(_ arguments: [String]) -> String? {
        do {
            _ = try FareLensCtl.parseAsRoot(["watchlists", "add", "--user", "u-1", "JFK", "NRT"] + arguments)
            return nil
        } catch {
            return FareLensCtl.message(for: error)
        }
    }

    @Test("--within with --any-dates: the range and the trip length; --weekends alone: any weekend trip in it")
    func ranges() throws {
        let spring = try add(["--within", "2027-03-01..2027-05-31", "--any-dates", "5-9"]).dates.flexible
        #expect(spring.minTripDays == 5 && spring.maxTripDays == 9 && !spring.weekendsOnly)
        #expect(spring.earliestDeparture == CalendarDate(year: 2027, month: 3, day: 1)!.message)
        #expect(spring.latestReturn == CalendarDate(year: 2027, month: 5, day: 31)!.message)
        let weekends = try add(["--within", "2027-03-01..2027-03-31", "--weekends"]).dates.flexible
        #expect(weekends.weekendsOnly && weekends.maxTripDays == 0 && weekends.hasEarliestDeparture)
        let update = try FareLensCtl.parseAsRoot(["watchlists", "update", "--user", "u-1", "w-1", "--within", "2027-03-01..2027-03-31", "--weekends"])
        #expect(try #require(update as? WatchlistsCommand.Update).makeRequest().dates.flexible.weekendsOnly)
    }

    @Test("refused before anything is sent: --weekends without --within, --within with --from, a range that is not two dates")
    func refusals() {
        #expect(refusal(["--weekends"])?.contains("--weekends needs --within") == true)
        #expect(refusal(["--within", "2027-03-01..2027-03-31", "--from", "2027-03-02"])?.contains("alternatives") == true)
        #expect(refusal(["--within", "2027-03-01"])?.contains("YYYY-MM-DD..YYYY-MM-DD") == true)
        #expect(refusal(["--within", "2027-03-01..2027-02-30"])?.contains("--within's end") == true)
    }
}
