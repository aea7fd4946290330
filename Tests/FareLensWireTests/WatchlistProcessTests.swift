import FareLensTesting
import Foundation
import Testing

/// Search, subscription and watchlists in three real processes, driven by
/// `farelensctl` as an operator would.
@Suite("Watchlists across processes", .serialized)
struct WatchlistProcessTests {
    /// Three `farelens serve` processes: search on the hub, subscription and watchlist on two spokes.
    struct ThreeNodes {
        let socket: String
        var processes: [ChildProcess]

        static func start() async throws -> ThreeNodes {
            let directory = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
            let socket = directory + "/hub.sock"
            var nodes = ThreeNodes(socket: socket, processes: [])
            do {
                let hub = try ChildProcess.start(Binaries.farelens, ["serve", "--services", "search", "--data-dir", directory + "/hub", "--listen", socket, "--log-level", "error"])
                nodes.processes.append(hub)
                try await hub.waitForOutput(containing: "farelens ready")
                for service in ["subscription", "watchlist"] {
                    let spoke = try ChildProcess.start(Binaries.farelens, ["serve", "--services", service, "--data-dir", directory + "/" + service, "--connect", socket, "--log-level", "error"])
                    nodes.processes.append(spoke)
                    try await spoke.waitForOutput(containing: "farelens ready")
                }
                _ = try await meshStatus(socket) { status in status.count == 3 && status.allSatisfy(\.connected) }
                return nodes
            } catch {
                nodes.kill()
                throw error
            }
        }

        func kill() { for process in processes.reversed() { process.kill() } }

        func ctl(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
            try await ChildProcess.run(Binaries.farelensctl, arguments + ["--socket", socket])
        }
    }

    @Test("a user created over the socket gets a trial; on Free five watchlists are accepted and the 6th refused; a check prices a watchlist with the real search; deleting the user erases them")
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

        let deleted = try await nodes.ctl(["users", "delete", id])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        try await waitUntil("the deletion reached the watchlist process") {
            let list = try? await nodes.ctl(["watchlists", "list", "--user", id, "--all", "--json"])
            return list?.status == 0 && list?.stdout.contains(watchlistIDs[0]) == false
        }
    }

    static func isoDate(daysFromNow days: Int) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.string(from: Date().addingTimeInterval(Double(days) * 86_400))
    }
}
