import Foundation

/// Runs `work`, which blocks its thread (libnats' connect and JetStream
/// calls, a child process's start-up), on a thread of its own and resumes
/// the caller when it ends.
///
/// The concurrency pool has one thread per core: two blocking waits on a
/// 2-core machine stop every task of the process until they end. A CI run
/// once lost 30 s this way — two nodes connecting to a `nats-server` that
/// was still starting held both pool threads, and every other test's
/// bounded wait gave up — so a wait that blocks never runs on the pool.
public func onOwnThread<Value: Sendable, Failure: Error>(
    _ work: @escaping @Sendable () throws(Failure) -> Value
) async throws(Failure) -> Value {
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, Failure>, Never>) in
        Thread.detachNewThread {
            continuation.resume(returning: Result { () throws(Failure) -> Value in try work() })
        }
    }
    return try result.get()
}
