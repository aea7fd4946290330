import Dispatch
import HummingbirdBcrypt
import Synchronization

/// bcrypt for the password accounts (hummingbird-auth's, OpenBSD's C code
/// with its constant-time comparison), run off the concurrency pool: one
/// hash at cost 12 takes about a quarter of a second, which would hold one
/// of the pool's threads (two on this machine) and the service's actor.
final class PasswordHasher: Sendable {
    /// bcrypt's cost (log2 of its rounds): `subscription.bcryptCost`, 12 by
    /// default; tests use 4, bcrypt's least.
    let cost: UInt8
    /// A hash of no one's password, checked against when the email is
    /// unknown so that an unknown email takes as long as a wrong password.
    private let decoy = Mutex<String?>(nil)

    init(cost: UInt8) {
        self.cost = cost
    }

    /// The bcrypt hash of `password`, with a new salt.
    func hash(_ password: String) async -> String {
        let cost = self.cost
        return await Self.offPool { Bcrypt.hash(password, cost: cost) }
    }

    /// Whether `password` matches `hash`; against the decoy when `hash` is
    /// nil (always false, in the same time).
    func verify(_ password: String, hash: String?) async -> Bool {
        let against: String
        if let hash {
            against = hash
        } else if let made = decoy.withLock({ $0 }) {
            against = made
        } else {
            let made = await self.hash("decoy-\(UInt64.random(in: 0...UInt64.max))")
            decoy.withLock { $0 = made }
            against = made
        }
        let matches = await Self.offPool { Bcrypt.verify(password, hash: against) }
        return hash != nil && matches
    }

    private static func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async { continuation.resume(returning: work()) }
        }
    }
}
