import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing
@testable import WatchlistService

/// The same rule raced: alone after ops/test.sh's parallel run, since each
/// create asks subscription first and, among the other suites starting at
/// once on 2 cores, 5 of 20 such lookups once took over the bus's 5 s.
@Suite("One watchlist per trip, raced")
struct WatchlistConcurrentCreateTests {
    @Test("sixteen concurrent creates of one trip: exactly one is stored, the others are refused with watchlist-exists")
    func concurrentCreates() async throws {
        // Each create asks subscription first: on a clock that stands no lookup times out,
        // however loaded the run (the full suite on 2 cores timed out 5 of 20 at the default 5 s).
        var configuration = BusConfiguration()
        configuration.clock = .standing()
        let fixture = try WatchlistFixture(bus: MessageBus(configuration: configuration))
        try await fixture.running {
            let user = try await fixture.user()
            let codes = await withTaskGroup(of: String.self) { group in
                for _ in 0 ..< 16 {
                    group.addTask {
                        do throws(WatchlistError) {
                            _ = try await fixture.watchlists.create(addRequest(user))
                            return "created"
                        } catch { return error.code }
                    }
                }
                return await group.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
            }
            #expect(codes == ["created": 1, "watchlist-exists": 15], "\(codes)")
            #expect(try fixture.rows(user).count == 1)
        }
    }
}
