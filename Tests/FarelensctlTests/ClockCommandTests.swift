import ArgumentParser
import Testing
@testable import farelensctl

/// `farelensctl clock`: durations and options are checked before anything is sent.
@Suite("farelensctl clock")
struct ClockCommandTests {
    @Test("durations: a whole number with s, m, h or d; anything else (0, negative, no unit, an unknown unit, past a year) is refused", arguments: [
        ("90s", 90), ("30m", 1_800), ("6h", 21_600), ("1d", 86_400), ("366d", 31_622_400),
        ("0h", nil), ("-6h", nil), ("6", nil), ("6w", nil), ("h", nil), ("367d", nil), ("9223372036854775807d", nil), ("", nil),
    ] as [(String, Int?)])
    func durations(text: String, seconds: Int?) {
        #expect(ClockStep.seconds(text) == seconds)
    }

    @Test("advance parses a duration and --wait; a bad duration is refused naming invalid-duration, a bad --still-ms naming the option")
    func parsing() throws {
        let command = try FareLensCtl.parseAsRoot(["clock", "advance", "6h", "--wait", "--socket", "/tmp/x.sock"])
        let advance = try #require(command as? AdvanceClock)
        #expect(advance.duration == "6h" && advance.wait && advance.stillness.stillMs == 400 && advance.options.socketPath == "/tmp/x.sock")
        #expect(try FareLensCtl.parseAsRoot(["clock"]) is ShowClock, "the default subcommand shows the clocks")
        for (arguments, message) in [(["clock", "advance", "6"], "invalid-duration"), (["clock", "advance", "6h", "--still-ms", "5"], "--still-ms")] {
            do {
                _ = try FareLensCtl.parseAsRoot(arguments)
                Issue.record("\(arguments) parsed")
            } catch {
                #expect(FareLensCtl.message(for: error).contains(message), "\(FareLensCtl.message(for: error))")
            }
        }
    }

    @Test("mesh-not-still says what kept the mesh busy: activity, else who published between readings, else how long it was quiet (it said nothing when only publishing went on)")
    func unrest() {
        var busy = MeshStillness.Reading()
        busy.activity = ["hub: 3 queued on alerts.decided"]
        #expect(MeshStillness.unrest(busy, previous: nil, quietFor: nil, still: .milliseconds(400)) == "hub: 3 queued on alerts.decided")
        var before = MeshStillness.Reading()
        before.published = ["hub": 10, "spoke": 4]
        var after = before
        after.published["hub"] = 25
        #expect(MeshStillness.unrest(after, previous: before, quietFor: nil, still: .milliseconds(400)) == "hub published 15 events since the reading before")
        var joined = before
        joined.published["late"] = 0
        #expect(MeshStillness.unrest(joined, previous: before, quietFor: nil, still: .milliseconds(400)) == "nodes joined or left between the last two readings")
        #expect(MeshStillness.unrest(before, previous: before, quietFor: .milliseconds(150), still: .milliseconds(400)) == "quiet for 150 ms of the 400 ms asked (--still-ms)")
        #expect(MeshStillness.unrest(before, previous: nil, quietFor: nil, still: .milliseconds(400)) == "only one reading was taken")
    }
}
