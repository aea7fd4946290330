import Synchronization

/// A value shared between a test and the handlers or tasks it starts.
public final class Locked<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    /// Wraps `value`.
    public init(_ value: Value) { storage = Mutex(value) }
    /// Replaces the value.
    public func set(_ value: Value) { storage.withLock { $0 = value } }
    /// The current value.
    public func get() -> Value { storage.withLock { $0 } }
    /// Changes the value in place.
    public func update(_ body: (inout Value) -> Void) { storage.withLock { body(&$0) } }
}

/// A thread-safe counter for tests.
public final class Counter: Sendable {
    private let count = Locked(0)
    /// Starts at zero.
    public init() {}
    /// Adds one.
    public func add() { count.update { $0 += 1 } }
    /// The count so far.
    public var value: Int { count.get() }
}
