import Synchronization

/// Shares one in-flight computation among identical concurrent requests:
/// the first caller for a key runs `work`; callers arriving before it ends
/// await the same result (SPEC §1: identical searches share one provider call).
final class Coalescer<Value: Sendable>: Sendable {
    private let inFlight = Mutex<[String: Task<Result<Value, SearchError>, Never>]>([:])
    private let joins = Mutex(0)

    /// The result of `work` for `key`, and whether it was shared with an earlier caller.
    func run(_ key: String, _ work: @escaping @Sendable () async throws(SearchError) -> Value) async throws(SearchError) -> (Value, coalesced: Bool) {
        let (task, joined) = inFlight.withLock { table in
            if let running = table[key] {
                joins.withLock { $0 += 1 }
                return (running, true)
            }
            let task = Task { () -> Result<Value, SearchError> in
                do throws(SearchError) { return .success(try await work()) } catch { return .failure(error) }
            }
            table[key] = task
            return (task, false)
        }
        let result = await task.value
        if !joined { _ = inFlight.withLock { $0.removeValue(forKey: key) } }
        return (try result.get(), joined)
    }

    /// Keys in flight now (tests).
    var count: Int { inFlight.withLock { $0.count } }

    /// Callers that have joined an earlier caller's computation, ever (tests).
    var joined: Int { joins.withLock { $0 } }
}
