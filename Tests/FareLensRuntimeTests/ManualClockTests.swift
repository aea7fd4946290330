import FareLensServiceKit
import FareLensTesting
import Foundation
import Testing

/// A test's manual clock runs what waits on it when it is moved, and only
/// then (ManualWallClock, ClockSleepers, TransportClock(following:)).
@Suite struct ManualClockTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("a wait of 10 s is not ended by 9 s of moves, and is by the tenth: time moves only when the test says")
    func waitsForTheMove() async throws {
        let clock = ManualWallClock(start)
        let woke = Locked(false)
        let sleeper = Task {
            try await clock.sleep(for: .seconds(10), floor: .zero)
            woke.set(true)
        }
        #expect(await clock.waitUntilSleeping(1))
        for _ in 0..<9 { clock.advance(by: 1) }
        #expect(clock.sleeping == 1)
        #expect(!woke.get())
        clock.advance(by: 1)
        try await withTimeLimit("the sleeper woke") { try await sleeper.value }
        #expect(woke.get())
        #expect(clock.sleeping == 0)
    }

    @Test("with 200 tasks waiting for instants from 1 to 200 s, each move wakes exactly those it reached")
    func manySleepers() async throws {
        let clock = ManualWallClock(start)
        let woken = Locked<[Int]>([])
        let tasks = (1...200).map { second in
            Task {
                try await clock.sleep(until: start.addingTimeInterval(Double(second)), floor: .zero)
                woken.update { $0.append(second) }
            }
        }
        #expect(await clock.waitUntilSleeping(200))
        for (move, reached) in [(0.5, 0), (0.5, 1), (49, 50), (100, 150), (1_000, 200)] {
            clock.advance(by: move)
            try await waitUntil("\(reached) woken") { woken.get().count == reached }
            #expect(Set(woken.get()) == Set(0..<reached + 1).subtracting([0]), "after moving to +\(clock.now().timeIntervalSince(start)) s")
            #expect(clock.sleeping == 200 - reached)
        }
        for task in tasks { try await task.value }
    }

    @Test("a wait cancelled before or while it waits ends at once with CancellationError, and leaves nothing waiting")
    func cancellation() async throws {
        let clock = ManualWallClock(start)
        let waiting = Task { try await clock.sleep(for: .seconds(3_600), floor: .zero) }
        #expect(await clock.waitUntilSleeping(1))
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(clock.sleeping == 0)

        let cancelledFirst = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(3_600), floor: .zero)
        }
        await #expect(throws: CancellationError.self) { try await cancelledFirst.value }
        #expect(clock.sleeping == 0)
    }

    @Test("500 waits, cancelled at random while the clock moves through their instants: each ends, woken or cancelled, and no entry is left behind")
    func cancellationsRacingMoves() async throws {
        let sleepers = ClockSleepers()
        let start = self.start
        var generator = SystemRandomNumberGenerator()
        let waits = (0..<500).map { _ in
            let instant = start.addingTimeInterval(Double.random(in: 1...100, using: &generator))
            return Task { () -> Bool in
                do {
                    try await sleepers.wait(until: instant, now: start)
                    return true
                } catch is CancellationError {
                    return false
                }
            }
        }
        let mover = Task {
            for second in 1...100 {
                sleepers.resume(upTo: start.addingTimeInterval(Double(second)))
                await Task.yield()
            }
        }
        for wait in waits.shuffled() where Bool.random() {
            wait.cancel()
            await Task.yield()
        }
        await mover.value
        var ended = 0
        for wait in waits {
            _ = try await withTimeLimit("each wait ends") { try await wait.value }
            ended += 1
        }
        #expect(ended == 500)
        #expect(sleepers.entries == 0, "every id taken was given back")
    }

    @Test("a wait for an instant the clock has reached returns at once; one that arrives after the move that reached it is not left behind")
    func reachedInstants() async throws {
        let clock = ManualWallClock(start)
        try await withTimeLimit("a wait for now") { try await clock.sleep(until: start, floor: .zero) }
        try await withTimeLimit("a wait for zero") { try await clock.sleep(for: .zero, floor: .zero) }
        // The race in slow motion: the waiter read the clock before the move, and registers after it.
        let sleepers = ClockSleepers()
        sleepers.resume(upTo: start.addingTimeInterval(5))
        try await withTimeLimit("a late waiter") { try await sleepers.wait(until: start.addingTimeInterval(5), now: start) }
        #expect(sleepers.count == 0)
    }

    @Test("a transport clock following a manual one reads it and waits until it is moved")
    func transportFollows() async throws {
        let clock = ManualWallClock(start)
        let transport = TransportClock(following: clock)
        #expect(transport.now() == start)
        let retry = Task { try await transport.sleep(for: .seconds(1)) }
        #expect(await clock.waitUntilSleeping(1))
        clock.advance(by: 1)
        try await withTimeLimit("the retry's wait ended") { try await retry.value }
        #expect(transport.now() == start.addingTimeInterval(1))
    }

    @Test("the system clock's wait is a real one, and a fast-forwarded clock's is shorter by its rate, never below the floor")
    func realClocks() async throws {
        let began = ContinuousClock.now
        try await SystemWallClock().sleep(for: .milliseconds(30), floor: .zero)
        #expect(ContinuousClock.now - began >= .milliseconds(30))
        let fast = FastForwardClock(epoch: start, rate: 3_600)
        #expect(fast.realDuration(of: .seconds(3_600), floor: .milliseconds(20)) == .seconds(1))
        #expect(fast.realDuration(of: .seconds(1), floor: .milliseconds(20)) == .milliseconds(20))
    }
}
