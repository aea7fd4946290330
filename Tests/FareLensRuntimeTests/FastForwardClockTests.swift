import FareLensRuntime
import FareLensServiceKit
import Foundation
import Testing

/// The demo's clock (docs/demo.md).
@Suite("Fast-forwarded clock")
struct FastForwardClockTests {
    @Test("two clocks with the same epoch and rate read the same time whenever each was made; at the epoch they read real time")
    func sharedEpoch() {
        let epoch = Date(timeIntervalSince1970: 1_800_000_000)
        let real = { (seconds: Double) in { @Sendable in epoch.addingTimeInterval(seconds) } }
        let hub = FastForwardClock(epoch: epoch, rate: 28_800, realNow: real(2.5))
        let spoke = FastForwardClock(epoch: epoch, rate: 28_800, realNow: real(2.5))
        #expect(hub.now() == spoke.now())
        #expect(hub.now() == epoch.addingTimeInterval(2.5 * 28_800))
        #expect(FastForwardClock(epoch: epoch, rate: 28_800, realNow: real(0)).now() == epoch)
    }

    @Test("periodic work is paced in clock time: an hour at 3,600× is a real second, never below the floor; the real clock waits as asked")
    func pacing() {
        let fast = FastForwardClock(epoch: Date(), rate: 3_600)
        #expect(fast.realDuration(of: .seconds(3_600)) == .seconds(1))
        #expect(fast.realDuration(of: .seconds(1)) == .milliseconds(20))
        #expect(SystemWallClock().realDuration(of: .seconds(30)) == .seconds(30))
        #expect(FastForwardClock(epoch: Date(), rate: 0.5).rate == 1, "never slower than real time")
    }
}
