import BenchmarkHarness
import Foundation

/// `FARELENS_BENCH_ONLY=state-memory`: what the alerts service's set of users
/// with policy state costs in memory at 1 M users. `UsersWithPolicyState`
/// holds a `Set<String>` of user ids inside a mutex; the type is internal
/// to the service, so this builds the same structure from ids shaped like
/// subscription's (`u-` and 16 hex digits: 18 bytes, too long for a
/// string stored inline), inserted one at a time as sent decisions insert
/// them. Reference, same run: the same ids in an array, which the set
/// shares (a string is copied by reference), so the set's own table is the
/// difference.
func runStateMemoryBenchmark() {
    let count = 1_000_000
    var generator = SystemRandomNumberGenerator()
    let start = residentMiB()
    var ids: [String] = []
    ids.reserveCapacity(count)
    for _ in 0 ..< count { ids.append(userID(generator.next())) }
    let withIDs = residentMiB()
    var users = Set<String>()
    for id in ids { users.insert(id) }
    let withSet = residentMiB()
    let arrayMiB = Double(count * MemoryLayout<String>.stride) / 1_048_576
    let strings = withIDs - start - arrayMiB
    let table = withSet - withIDs
    print("users with policy state, \(users.count) ids of 18 bytes: the ids' own storage \(format(strings)) MiB (RSS with the array \(format(withIDs - start)) MiB, less the array's \(format(arrayMiB))), the set's table \(format(table)) MiB; the service's set at 1 M users about \(format(strings + table)) MiB (\(format((strings + table) * 1_048_576 / Double(count))) bytes a user)")
    withExtendedLifetime((ids, users)) {}
}

/// `u-` and `value` in 16 hex digits, written in one allocation: no
/// temporary strings freed between the kept ones to swell the RSS.
private func userID(_ value: UInt64) -> String {
    String(unsafeUninitializedCapacity: 18) { buffer in
        let digits = Array("0123456789abcdef".utf8)
        buffer[0] = UInt8(ascii: "u")
        buffer[1] = UInt8(ascii: "-")
        for index in 0 ..< 16 { buffer[2 + index] = digits[Int((value >> (60 - 4 * UInt64(index))) & 0xF)] }
        return 18
    }
}
