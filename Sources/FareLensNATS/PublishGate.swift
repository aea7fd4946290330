#if NATS
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps libnats from handing back a publish that is still being made:
/// durable publishes pass through it together (``publishing(_:)``), and
/// taking unanswered publishes back (`js_PublishAsyncGetPendingList`,
/// which gives the caller messages a publish call may still be writing)
/// waits until none is in a call and holds new ones off (``alone(_:)``).
/// A pthread read-write lock that prefers the writer, so a take-back
/// (rare: an acknowledgement overdue) is not starved by a stream of
/// publishes.
// @unchecked Sendable: the lock is allocated once in `init`, freed in
// `deinit`, and only used through the pthread calls, which synchronise.
final class PublishGate: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    init() {
        lock = .allocate(capacity: 1)
        var attributes = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attributes)
        #if canImport(Glibc)
        pthread_rwlockattr_setkind_np(&attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        #endif
        pthread_rwlock_init(lock, &attributes)
        pthread_rwlockattr_destroy(&attributes)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    /// Runs one publish call; others may run at the same time.
    func publishing<T>(_ body: () throws -> T) rethrows -> T {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }

    /// Runs `body` while no publish call is being made.
    func alone<T>(_ body: () throws -> T) rethrows -> T {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }
}
#endif
