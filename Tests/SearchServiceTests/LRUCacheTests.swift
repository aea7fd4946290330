@testable import SearchService
import Testing

@Suite("LRU cache")
struct LRUCacheTests {
    @Test("past its entry bound the cache evicts the least recently inserted entry first")
    func evictsOldestInsert() {
        var cache = LRUCache<String, Int>(maxEntries: 3, maxCost: 1_000)
        for (index, key) in ["a", "b", "c", "d"].enumerated() { cache.insert(index, forKey: key, cost: 1) }
        #expect(cache.keysByRecency == ["d", "c", "b"])
        #expect(cache.peek("a") == nil && cache.count == 3 && cache.evictions == 1)
    }

    @Test("reading an entry makes it the most recently used, so another one is evicted instead")
    func readRefreshes() {
        var cache = LRUCache<String, Int>(maxEntries: 3, maxCost: 1_000)
        for (index, key) in ["a", "b", "c"].enumerated() { cache.insert(index, forKey: key, cost: 1) }
        #expect(cache.value(forKey: "a") == 0)
        cache.insert(3, forKey: "d", cost: 1)
        #expect(cache.keysByRecency == ["d", "a", "c"])
        #expect(cache.peek("b") == nil)
    }

    @Test("peeking does not change the eviction order")
    func peekKeepsOrder() {
        var cache = LRUCache<String, Int>(maxEntries: 2, maxCost: 1_000)
        cache.insert(0, forKey: "a", cost: 1)
        cache.insert(1, forKey: "b", cost: 1)
        #expect(cache.peek("a") == 0)
        cache.insert(2, forKey: "c", cost: 1)
        #expect(cache.keysByRecency == ["c", "b"])
    }

    @Test("the total cost never exceeds the byte bound: enough old entries go to make room")
    func byteBound() {
        var cache = LRUCache<String, Int>(maxEntries: 100, maxCost: 1_000)
        for index in 0..<10 { cache.insert(index, forKey: "k\(index)", cost: 300) }
        #expect(cache.totalCost <= 1_000 && cache.count == 3)
        #expect(cache.keysByRecency == ["k9", "k8", "k7"])
        cache.insert(10, forKey: "big", cost: 700)
        #expect(cache.totalCost == 1_000 && cache.keysByRecency == ["big", "k9"])
    }

    @Test("an entry costing more than the whole bound is not kept")
    func oversizedEntry() {
        var cache = LRUCache<String, Int>(maxEntries: 10, maxCost: 100)
        cache.insert(1, forKey: "small", cost: 10)
        cache.insert(2, forKey: "huge", cost: 500)
        #expect(cache.peek("huge") == nil && cache.count == 0 && cache.totalCost == 0)
    }

    @Test("replacing a value updates its cost and makes it the most recent")
    func replace() {
        var cache = LRUCache<String, Int>(maxEntries: 10, maxCost: 100)
        cache.insert(1, forKey: "a", cost: 10)
        cache.insert(2, forKey: "b", cost: 10)
        cache.insert(3, forKey: "a", cost: 50)
        #expect(cache.totalCost == 60 && cache.count == 2 && cache.keysByRecency == ["a", "b"] && cache.peek("a") == 3)
    }

    @Test("slots freed by eviction and removal are reused: a full cache keeps a fixed size under churn")
    func churn() {
        var cache = LRUCache<Int, Int>(maxEntries: 50, maxCost: 1 << 20)
        for key in 0..<10_000 { cache.insert(key, forKey: key, cost: 8) }
        #expect(cache.count == 50 && cache.totalCost == 400 && cache.evictions == 9_950)
        #expect(cache.removeValue(forKey: 9_999) == 9_999 && cache.count == 49 && cache.keysByRecency.first == 9_998)
        #expect(cache.keysByRecency == Array((9_950..<9_999).reversed()))
    }
}
