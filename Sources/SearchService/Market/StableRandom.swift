import Foundation

/// Deterministic pseudo-randomness keyed by text (FNV-1a 64 + SplitMix64):
/// the same seed and key give the same number in every process and run,
/// unlike `Hasher`, which is seeded per process.
struct StableRandom: Sendable {
    let seed: UInt64

    /// A well-mixed 64-bit value for `key`.
    func bits(_ key: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ seed
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        // SplitMix64 finaliser.
        hash = (hash ^ (hash >> 30)) &* 0xbf58_476d_1ce4_e5b9
        hash = (hash ^ (hash >> 27)) &* 0x94d0_49bb_1331_11eb
        return hash ^ (hash >> 31)
    }

    /// Uniform in [0, 1).
    func uniform(_ key: String) -> Double { Double(bits(key) >> 11) * 0x1.0p-53 }

    /// Standard normal (Box–Muller).
    func normal(_ key: String) -> Double {
        let u1 = max(uniform(key + "#1"), 1e-12), u2 = uniform(key + "#2")
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }

    /// An integer in `range`.
    func int(_ key: String, in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(bits(key) % UInt64(range.count))
    }
}
