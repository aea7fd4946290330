@testable import AlertsService
import FareLensMessages
import FareLensTesting
import Foundation
import Testing

/// The service's writes are awaited: while the database's writer is busy
/// (a batch of decisions takes up to about 20 ms), a request's write does
/// not hold the actor. Runs alone after ops/test.sh's parallel run: holding a
/// writer thread for up to 2 s stalled the other suites running beside it.
@Suite struct BusyWriterTests {
    @Test("a request waiting for a busy writer leaves the actor free for other work")
    func requestDoesNotHoldTheActor() async throws {
        let fixture = try AlertsFixture()
        let started = Locked(false)
        let released = Locked(false)
        let holderEnded = Locked(false)
        // Holds the writer until the test releases it, for 2 s at most (so a blocking write cannot hang the test).
        let holding = Task {
            try await fixture.database.writer.write { _ in
                started.set(true)
                let deadline = Date().addingTimeInterval(2)
                while !released.get(), Date() < deadline { usleep(1_000) }  // safe: a bounded wait, the writer held on purpose
                holderEnded.set(true)
            }
        }
        for _ in 0..<2_000 where !started.get() { try await Task.sleep(for: .milliseconds(1)) }  // safe: polling, 2 s at most
        #expect(started.get())
        var unmute = UnmuteRouteRequest()
        unmute.userID = "u-1"
        unmute.origin = "JFK"
        unmute.destination = "NRT"
        let request = Task { try await fixture.alerts.unmute(unmute) }
        try await Task.sleep(for: .milliseconds(50))  // safe: a head start for the request to reach the actor and start its write
        // Any actor-isolated access: behind a blocking write it waited until the writer was free (2 s here).
        _ = await fixture.alerts.delivery.outboxDepth
        #expect(!holderEnded.get(), "the actor was held until the writer was free")
        released.set(true)
        try await holding.value
        #expect(try await request.value.wasMuted == false)
    }
}
