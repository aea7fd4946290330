import FareLensNATS
import FareLensTesting
import Foundation
import Testing

/// Blocking work (libnats' connect, a JetStream election, a test server's
/// start-up) runs on threads of its own: while it waits, the concurrency
/// pool keeps running every other task. A CI run once lost every split-mesh
/// test of its first phase to two such waits holding both pool threads.
@Suite("Blocking work leaves the concurrency pool free")
struct OwnThreadTests {
    @Test("more blocking waits than the pool has threads, each released by a task on the pool: all are released, none at its bound")
    func blockingWaitsLeaveThePoolFree() async throws {
        let count = ProcessInfo.processInfo.activeProcessorCount * 4
        let released = DispatchSemaphore(value: 0)
        let started = Counter()
        let waits = (0..<count).map { _ in
            Task {
                await onOwnThread { () -> Bool in
                    started.add()
                    // Blocks this thread; 10 s is a bound against a hang, not a timing.
                    let signalled = released.wait(timeout: .now() + .seconds(10)) == .success
                    released.signal()  // pass it on to the next waiter
                    return signalled
                }
            }
        }
        // This task needs a pool thread: were the waits on the pool, it could not run until they gave up.
        try await waitUntil("every wait started") { started.value == count }
        released.signal()
        for wait in waits { #expect(await wait.value, "a wait was released only by its bound: it held a pool thread") }
    }

    @Test("a failure of the blocking work reaches the caller as its own typed error")
    func typedErrorPassesThrough() async {
        struct Refused: Error, Equatable { let code: String }
        let error = await #expect(throws: Refused.self) {
            try await onOwnThread { () throws(Refused) -> Int in throw Refused(code: "refused") }
        }
        #expect(error?.code == "refused")
    }
}
