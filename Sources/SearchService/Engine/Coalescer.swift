/// The identical searches in flight (SPEC §1: identical searches share one
/// provider call): per key, the one task fetching the answer and the callers
/// waiting for it.
///
/// A value type owned by ``SearchEngine`` (an actor), so starting, joining
/// and leaving a flight are atomic with the cache look-up before them.
/// Waiters are counted: when the last one leaves (cancelled, or released
/// at its deadline) the shared task is cancelled, so the cancellation
/// reaches the provider call.
struct Coalescer<Value: Sendable> {
    /// How a waiter is resumed: with the flight's result, or with
    /// `cancelled` when it leaves.
    typealias Waiter = CheckedContinuation<Result<Value, SearchError>, Never>

    private struct Flight {
        let id: UInt64
        let task: Task<Void, Never>
        var waiters: [UInt64: Waiter] = [:]
    }

    private var flights: [String: Flight] = [:]
    private var lastID: UInt64 = 0
    /// Callers that have joined an earlier caller's flight, ever (tests, metrics).
    private(set) var joined = 0

    /// A fresh id for a flight or a waiter.
    mutating func nextID() -> UInt64 {
        lastID += 1
        return lastID
    }

    /// The id of the flight running for `key`, counting the caller as joined.
    mutating func join(_ key: String) -> UInt64? {
        guard let flight = flights[key] else { return nil }
        joined += 1
        return flight.id
    }

    /// Records `task` as the flight for `key`.
    mutating func start(_ key: String, id: UInt64, task: Task<Void, Never>) {
        flights[key] = Flight(id: id, task: task)
    }

    /// Adds a waiter to flight `id`; false when that flight is over (the
    /// caller resumes the waiter itself).
    mutating func add(_ waiter: Waiter, id waiterID: UInt64, to key: String, flight id: UInt64) -> Bool {
        guard flights[key]?.id == id else { return false }
        flights[key]!.waiters[waiterID] = waiter
        return true
    }

    /// Removes waiter `waiterID` of flight `id`. Returns the waiter to resume
    /// (nil if it already had its result) and, when it was the last one, the
    /// flight's task to cancel; the flight is then forgotten, so a later
    /// identical search starts afresh.
    mutating func leave(_ key: String, flight id: UInt64, waiter waiterID: UInt64) -> (Waiter?, Task<Void, Never>?) {
        guard var flight = flights[key], flight.id == id, let waiter = flight.waiters.removeValue(forKey: waiterID) else { return (nil, nil) }
        guard flight.waiters.isEmpty else {
            flights[key] = flight
            return (waiter, nil)
        }
        flights.removeValue(forKey: key)
        return (waiter, flight.task)
    }

    /// Ends flight `id` of `key`: its waiters, to resume with the result.
    /// Nil when the flight was abandoned (every waiter left) or replaced.
    mutating func land(_ key: String, flight id: UInt64) -> [Waiter]? {
        guard let flight = flights[key], flight.id == id else { return nil }
        flights.removeValue(forKey: key)
        return Array(flight.waiters.values)
    }

    /// Ends every flight: their waiters and tasks (shutdown).
    mutating func abandonAll() -> [(waiters: [Waiter], task: Task<Void, Never>)] {
        defer { flights.removeAll() }
        return flights.values.map { (Array($0.waiters.values), $0.task) }
    }

    /// Callers waiting on flights now (tests).
    var waiting: Int { flights.values.reduce(0) { $0 + $1.waiters.count } }
}
