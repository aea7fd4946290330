import FareLensTesting
import Testing

/// `withStallLimit`, the bound of tests whose run may be slow but must not
/// stand still (`BridgeRequestBehindEventsTests`, which also shows a body
/// that keeps moving is not cut).
@Suite("Test helpers: the stall limit")
struct StallLimitTests {
    @Test("a body that stops making progress is cut at its stall bound, long before its limit, and the error names the steps made")
    func stoppedBodyIsCut() async throws {
        do {
            try await withTimeLimit("the stall limit cut the body", limit: .seconds(30)) {
                try await withStallLimit("three steps, then nothing", stall: .seconds(1), limit: .seconds(600)) { progress in
                    for _ in 0 ..< 3 { progress.advance() }
                    try await Task.sleep(for: .seconds(600))  // safe: cancelled by the stall limit under test; the outer limit bounds it
                }
            }
            Issue.record("a body that never finished was not cut")
        } catch let error as WaitTimedOut {
            #expect(error.what.hasPrefix("three steps, then nothing (no progress for"), "\(error)")
            #expect(error.what.hasSuffix("after 3 steps)"), "\(error)")
        }
    }
}
