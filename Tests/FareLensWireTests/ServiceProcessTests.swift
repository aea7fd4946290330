import FareLensTesting
import Foundation
import Testing

/// The services split over three real processes, driven by
/// `farelensctl` as an operator would.
@Suite("Services across processes", .serialized)
struct ServiceProcessTests {
    /// `farelens serve` processes: the hub with `hub`'s services, one spoke for each of `spokes`.
    struct ThreeNodes {
        let socket: String
        var processes: [ChildProcess]

        static func start(hub hubServices: String = "search", spokes: [String] = ["subscription", "watchlist"]) async throws -> ThreeNodes {
            let directory = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
            let socket = directory + "/hub.sock"
            var nodes = ThreeNodes(socket: socket, processes: [])
            do {
                let hub = try ChildProcess.start(Binaries.farelens, ["serve", "--services", hubServices, "--data-dir", directory + "/hub", "--listen", socket, "--log-level", "error"])
                nodes.processes.append(hub)
                try await hub.waitForOutput(containing: "farelens ready")
                for (index, services) in spokes.enumerated() {
                    let spoke = try ChildProcess.start(Binaries.farelens, ["serve", "--services", services, "--data-dir", directory + "/spoke\(index)", "--connect", socket, "--log-level", "error"])
                    nodes.processes.append(spoke)
                    try await spoke.waitForOutput(containing: "farelens ready")
                }
                _ = try await meshStatus(socket) { status in status.count == spokes.count + 1 && status.allSatisfy(\.connected) }
                return nodes
            } catch {
                nodes.kill()
                throw error
            }
        }

        func kill() { for process in processes.reversed() { process.kill() } }

        func ctl(_ arguments: [String]) async throws -> FinishedProcess {
            try await ChildProcess.run(Binaries.farelensctl, arguments + ["--socket", socket])
        }
    }

    @Test("a user created over the socket gets a trial; on Free five watchlists are accepted and the 6th refused; a check prices a watchlist with the real search; update changes one in place and switching it off frees a place; deleting the user erases them")
    func ctlWatchlists() async throws {
        let nodes = try await ThreeNodes.start()
        defer { nodes.kill() }

        let created = try await nodes.ctl(["users", "create", "--email", "a@example.com", "--time-zone", "America/New_York", "--json"])
        #expect(created.status == 0, "\(created.stderr)")
        let user = try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any]
        #expect(user?["tier"] as? String == "trial")
        let id = try #require(user?["id"] as? String)
        let tier = try await nodes.ctl(["users", "tier", id, "free", "--json"])
        #expect(tier.status == 0, "\(tier.stderr)")

        var watchlistIDs: [String] = []
        for destination in ["NRT", "LHR", "CDG", "SFO", "LAX"] {
            let added = try await nodes.ctl(["watchlists", "add", "--user", id, "JFK", destination, "--any-dates", "7-14", "--threshold", "450.00USD", "--json"])
            #expect(added.status == 0, "\(added.stderr)")
            let watchlist = try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: Any]
            watchlistIDs.append(try #require(watchlist?["id"] as? String))
        }
        let sixth = try await nodes.ctl(["watchlists", "add", "--user", id, "JFK", "BOS", "--from", Self.isoDate(daysFromNow: 40), "--to", Self.isoDate(daysFromNow: 47)])
        #expect(sixth.status == 1)
        #expect(sixth.stderr.hasPrefix("farelensctl: error: watchlist: remote [watchlist-limit]: Free allows 5 active watchlists"), "\(sixth.stderr)")

        let checked = try await nodes.ctl(["watchlists", "check", "--user", id, watchlistIDs[0], "--json"])
        #expect(checked.status == 0, "\(checked.stderr)")
        let check = try JSONSerialization.jsonObject(with: Data(checked.stdout.utf8)) as? [String: Any]
        #expect((check?["last_price_minor_units"] as? Int ?? 0) > 0, "\(checked.stdout)")

        let listed = try await nodes.ctl(["watchlists", "list", "--user", id])
        #expect(listed.status == 0 && listed.stdout.contains("5 active of 5 allowed"), "\(listed.stdout)")

        // Changed in place across the split: same id, the new threshold and mode; switched off, it frees a place on Free.
        let updated = try await nodes.ctl(["watchlists", "update", "--user", id, watchlistIDs[1], "--threshold", "420.00USD", "--mode", "both", "--json"])
        #expect(updated.status == 0, "\(updated.stderr)")
        let changed = try JSONSerialization.jsonObject(with: Data(updated.stdout.utf8)) as? [String: Any]
        #expect(changed?["id"] as? String == watchlistIDs[1] && changed?["threshold"] as? String == "$420.00" && changed?["mode"] as? String == "both", "\(updated.stdout)")
        let off = try await nodes.ctl(["watchlists", "update", "--user", id, watchlistIDs[1], "--deactivate", "--json"])
        #expect(off.status == 0 && off.stdout.contains("\"active\" : false"), "\(off.stdout) \(off.stderr)")
        let sixthAgain = try await nodes.ctl(["watchlists", "add", "--user", id, "JFK", "BOS", "--any-dates", "3-5"])
        #expect(sixthAgain.status == 0, "\(sixthAgain.stderr)")
        let backOn = try await nodes.ctl(["watchlists", "update", "--user", id, watchlistIDs[1], "--activate"])
        #expect(backOn.status == 1 && backOn.stderr.contains("remote [watchlist-limit]"), "\(backOn.stderr)")

        let deleted = try await nodes.ctl(["users", "delete", id])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        try await waitUntil("the deletion reached the watchlist process") {
            // Erased: the user's watchlists are gone, and the user is unknown, as to every other command.
            let list = try? await nodes.ctl(["watchlists", "list", "--user", id, "--all", "--json"])
            // With --json the error is one JSON object on stdout.
            return list?.status == 1 && list?.stdout.contains(#""code":"unknown-user""#) == true
        }
    }

    static func isoDate(daysFromNow days: Int) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.string(from: Date().addingTimeInterval(Double(days) * 86_400))
    }

    @Test("search, scoring and subscription/watchlists in three processes: a new route has no made-up score, an empty feed answers, bad input is one named error line")
    func ctlScoring() async throws {
        let nodes = try await ThreeNodes.start(hub: "search", spokes: ["scoring", "subscription,watchlist"])
        defer { nodes.kill() }
        let created = try await nodes.ctl(["users", "create", "--email", "b@example.com", "--time-zone", "Europe/Lisbon", "--json"])
        #expect(created.status == 0, "\(created.stderr)")
        let id = try #require((try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])?["id"] as? String)

        let score = try await nodes.ctl(["score", "LIS", "LON", Self.isoDate(daysFromNow: 30), "20.00EUR"])
        #expect(score.status == 0 && score.stdout.contains("Not enough data yet"), "\(score.stdout)\(score.stderr)")
        let deals = try await nodes.ctl(["deals", "--user", id])
        #expect(deals.status == 0, "\(deals.stderr)")
        let history = try await nodes.ctl(["history", "LIS", "LON", "--month", String(Self.isoDate(daysFromNow: 30).prefix(7)), "--ascii"])
        #expect(history.status == 0 && history.stdout.contains("Not enough data yet"), "\(history.stdout)\(history.stderr)")

        let unknown = try await nodes.ctl(["score", "LIS", "QQQ", Self.isoDate(daysFromNow: 30), "20.00EUR"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "farelensctl: error: scoring: remote [unknown-airport]: destination: 'QQQ' is not a known IATA airport or metro code\n", "\(unknown.stderr)")
        let nobody = try await nodes.ctl(["deals", "--user", "u-nobody"])
        #expect(nobody.status == 1 && nobody.stderr.contains("[unknown-user]"), "\(nobody.stderr)")
    }
}
