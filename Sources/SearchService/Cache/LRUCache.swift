/// A least-recently-used cache bounded by entry count and by total cost
/// (an estimate of bytes), with O(1) look-up, insert and eviction.
///
/// Storage is a dictionary from key to slot index plus an index-based
/// doubly-linked list over one array of slots (most recent at the head);
/// freed slots are reused, so a full cache allocates nothing per insert.
/// Hand-written because swift-collections has no LRU
/// (docs/decisions/0005-lru-cache.md). A value type: its owner (an actor)
/// provides the isolation.
struct LRUCache<Key: Hashable, Value> {
    fileprivate struct Slot {
        var key: Key
        var value: Value
        var cost: Int
        var previous: Int
        var next: Int
    }

    private static var none: Int { -1 }

    /// The most entries kept.
    let maxEntries: Int
    /// The most total cost kept (bytes, as estimated by the caller).
    let maxCost: Int
    private var index: [Key: Int] = [:]
    private var slots: [Slot?] = []
    private var free: [Int] = []
    private var head = -1
    private var tail = -1
    /// Sum of the costs of the entries kept.
    private(set) var totalCost = 0
    /// Entries removed to stay within the bounds, ever.
    private(set) var evictions = 0

    /// A cache keeping at most `maxEntries` entries and `maxCost` total cost.
    init(maxEntries: Int, maxCost: Int) {
        self.maxEntries = max(1, maxEntries)
        self.maxCost = max(1, maxCost)
    }

    /// Entries kept.
    var count: Int { index.count }

    /// The value for `key`, marking it most recently used.
    mutating func value(forKey key: Key) -> Value? {
        guard let position = index[key] else { return nil }
        moveToFront(position)
        return slots[position]!.value
    }

    /// The value for `key` without changing its recency.
    func peek(_ key: Key) -> Value? {
        index[key].map { slots[$0]!.value }
    }

    /// Stores `value` as the most recently used entry, replacing any value for
    /// `key`, then evicts least recently used entries until both bounds hold.
    /// An entry costing more than `maxCost` on its own is not kept.
    mutating func insert(_ value: Value, forKey key: Key, cost: Int) {
        let cost = max(0, cost)
        if let position = index[key] {
            totalCost += cost - slots[position]!.cost
            slots[position]!.value = value
            slots[position]!.cost = cost
            moveToFront(position)
        } else {
            let slot = Slot(key: key, value: value, cost: cost, previous: Self.none, next: head)
            let position: Int
            if let reused = free.popLast() {
                position = reused
                slots[position] = slot
            } else {
                position = slots.count
                slots.append(slot)
            }
            if head != Self.none { slots[head]!.previous = position }
            head = position
            if tail == Self.none { tail = position }
            index[key] = position
            totalCost += cost
        }
        while (index.count > maxEntries || totalCost > maxCost), tail != Self.none {
            remove(at: tail)
            evictions += 1
        }
    }

    /// Removes the entry for `key`, returning its value.
    @discardableResult
    mutating func removeValue(forKey key: Key) -> Value? {
        guard let position = index[key] else { return nil }
        return remove(at: position)
    }

    /// Keys from most to least recently used (tests and diagnostics; O(n)).
    var keysByRecency: [Key] {
        var keys: [Key] = []
        var position = head
        while position != Self.none {
            keys.append(slots[position]!.key)
            position = slots[position]!.next
        }
        return keys
    }

    @discardableResult
    private mutating func remove(at position: Int) -> Value {
        let slot = slots[position]!
        unlink(position)
        index.removeValue(forKey: slot.key)
        totalCost -= slot.cost
        slots[position] = nil
        free.append(position)
        return slot.value
    }

    private mutating func moveToFront(_ position: Int) {
        guard position != head else { return }
        unlink(position)
        slots[position]!.previous = Self.none
        slots[position]!.next = head
        if head != Self.none { slots[head]!.previous = position }
        head = position
        if tail == Self.none { tail = position }
    }

    private mutating func unlink(_ position: Int) {
        let (previous, next) = (slots[position]!.previous, slots[position]!.next)
        if previous != Self.none { slots[previous]!.next = next } else { head = next }
        if next != Self.none { slots[next]!.previous = previous } else { tail = previous }
    }
}

extension LRUCache: Sendable where Key: Sendable, Value: Sendable {}
extension LRUCache.Slot: Sendable where Key: Sendable, Value: Sendable {}
