import FareLensMessages
import Foundation
import Testing
@testable import farelensctl

@Suite("farelensctl routes track-record")
struct TrackRecordCommandTests {
    @Test("a route or --all, never both or half a route, refused before any connection")
    func request() throws {
        let route = try RoutesCommand.TrackRecord.parse(["lon", "bcn"]).makeRequest()
        #expect(route.origin == "LON" && route.destination == "BCN")
        #expect(try RoutesCommand.TrackRecord.parse(["--all"]).makeRequest() == RouteTrackRecordRequest())
        for arguments in [[], ["LON"], ["LON", "BCN", "--all"], ["LONDON", "BCN"]] {
            #expect(throws: (any Error).self, "\(arguments)") { try RoutesCommand.TrackRecord.parse(arguments) }
        }
        // Reached through the group, as an operator types it.
        #expect(try FareLensCtl.parseAsRoot(["routes", "track-record", "LON", "BCN"]) is RoutesCommand.TrackRecord)
        #expect(try FareLensCtl.parseAsRoot(["routes", "forecast", "LON", "BCN", "--month", "2027-01"]) is ForecastCommand)
    }

    @Test("the text: one row per window with its share (a dash without alerts) and its clicks, then each window's sentence")
    func text() {
        var response = RouteTrackRecordResponse()
        response.origin = "LON"
        response.destination = "BCN"
        response.windows = [(7, 22, 3), (30, 0, 0)].map { days, sent, stopped in
            var window = TrackRecordWindow()
            window.days = Int32(days)
            window.alertsSent = Int32(sent)
            window.confirmedByRecheck = Int32(sent / 2)
            window.stoppedByRecheck = Int32(stopped)
            window.phantomShareStopped = sent + stopped == 0 ? 0 : Double(stopped) / Double(sent + stopped)
            window.clicks = Int32(sent + 5)
            window.clicksFareStillThere = Int32(sent)
            window.clicksFareRisen = Int32(stopped + 1)
            window.summary = "summary \(days)"
            return window
        }
        let text = RoutesCommand.TrackRecord.text(response)
        #expect(text.hasPrefix("Track record, LON→BCN"))
        #expect(text.contains("12%") && text.contains("  - summary 7") && text.contains("  - summary 30"))
        #expect(text.contains("CONFIRMED BY RE-CHECK") && text.contains("FARE STILL THERE"))
        let week = text.split(separator: "\n").first { $0.hasPrefix("7 ") }.map { $0.split(separator: " ").map(String.init) }
        #expect(week == ["7", "22", "11", "3", "12%", "27", "22", "4"], "\(text)")
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("30") }.map { $0.split(separator: " ").map(String.init) }
        #expect(rows == [["30", "0", "0", "0", "-", "5", "0", "1"]], "\(text)")
    }
}
