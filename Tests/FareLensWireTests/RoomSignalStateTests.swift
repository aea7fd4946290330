@testable import FareLensWire
import Testing

/// The reading loop's wait for room, as a state machine without a task.
@Suite struct RoomSignalStateTests {
    @Test("a waiter is kept until room is signalled, then handed back once; with room already it is resumed at once")
    func signal() {
        var signal = RoomSignalState<String>()
        let result1 = signal.wait("reader", hasRoom: true)
        #expect(result1, "room already: resume now, keep nothing")
        let result2 = signal.signal()
        #expect(result2 == nil)
        let result3 = signal.wait("reader", hasRoom: false)
        #expect(!result3)
        let result4 = signal.signal()
        #expect(result4 == "reader")
        let result5 = signal.signal()
        #expect(result5 == nil, "handed back once")
        #expect(!signal.isClosed)
    }

    @Test("the close hands back the waiter and is for good: a later wait resumes at once")
    func close() {
        var signal = RoomSignalState<String>()
        let result6 = signal.wait("reader", hasRoom: false)
        #expect(!result6)
        let result7 = signal.close()
        #expect(result7 == "reader")
        #expect(signal.isClosed)
        let result8 = signal.wait("reader again", hasRoom: false)
        #expect(result8, "closed: never kept")
        let result9 = signal.signal()
        #expect(result9 == nil)
        let result10 = signal.close()
        #expect(result10 == nil)
    }
}
