@testable import FareLensWire
import FareLensTesting
import Testing

/// A bridge connection's open/closed state machine, without a socket.
@Suite struct PeerLifecycleTests {
    @Test("actions given while open are kept and returned by the close, in order, once; the first reason stays")
    func closeRunsKeptActionsOnce() {
        var lifecycle = PeerLifecycle()
        let ran = Locked<[Int]>([])
        #expect(lifecycle.closeReason == nil)
        for index in 0..<3 {
            let runNow = lifecycle.whenClosed { ran.update { $0.append(index) } }
            #expect(runNow == nil, "kept while open")
        }
        let actions = lifecycle.close(reason: "connection closed")
        for action in actions { action() }
        #expect(ran.get() == [0, 1, 2])
        #expect(lifecycle.closeReason == "connection closed")
        let again = lifecycle.close(reason: "a second reason")
        #expect(again.isEmpty, "closing again returns nothing")
        #expect(lifecycle.closeReason == "connection closed", "the first reason stays")
    }

    @Test("an action given once closed is returned to run now, not kept")
    func afterCloseRunsNow() {
        var lifecycle = PeerLifecycle()
        _ = lifecycle.close(reason: "peer said goodbye")
        let ran = Locked(false)
        let now = lifecycle.whenClosed { ran.set(true) }
        now?()
        #expect(ran.get())
        let again = lifecycle.close(reason: "again")
        #expect(again.isEmpty)
    }
}
