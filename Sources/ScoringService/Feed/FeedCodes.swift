/// The codes a feed compares (airports, metros, carriers, currencies) as
/// small integers, so a scan over 10,000 deals compares numbers, not
/// strings. An id never changes while the service runs and ids only grow
/// (codes are a bounded set: the airport directory, carriers, currencies).
/// 0 is "none" (the empty string); a code never interned looks up as -1,
/// which no row holds, so a filter naming it matches nothing.
struct FeedCodes: Sendable {
    private var ids: [String: Int32] = [:]

    /// "None".
    static let none: Int32 = 0
    /// A code no deal has.
    static let unknown: Int32 = -1

    /// The id of `code`, given a new one the first time it is seen.
    mutating func intern(_ code: String) -> Int32 {
        guard !code.isEmpty else { return Self.none }
        if let id = ids[code] { return id }
        let id = Int32(ids.count + 1)
        ids[code] = id
        return id
    }

    /// The id of `code`: ``none`` for "", ``unknown`` for a code no deal has.
    func lookup(_ code: String) -> Int32 {
        guard !code.isEmpty else { return Self.none }
        return ids[code] ?? Self.unknown
    }
}
