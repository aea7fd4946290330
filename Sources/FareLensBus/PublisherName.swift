import Synchronization

/// A publisher's name as every event id carries it, copied with no
/// reference counting.
///
/// Every event a bus publishes carries the same publisher name (node name
/// plus epoch, longer than Swift's 15-byte inline strings), so a plain
/// `String` made every copy of an event's metadata retain and release one
/// shared buffer, from the publishing thread and the consuming one at once:
/// about a quarter of the publish path's time went to that one contended
/// reference count (docs/performance.md, issue #12). A name is therefore
/// interned once per process in a table that never frees it, and an id
/// refers to it without counting. Past ``PublisherName/internedLimit``
/// distinct names (a peer inventing names could otherwise grow the table
/// without bound), a name is kept as a plain string: correct, only slower.
struct PublisherName: Sendable, Hashable {
    /// The most names interned in one process: every bus life in the mesh
    /// is one (restarts included), far under this.
    static let internedLimit = 65_536

    private enum Storage {
        /// safe: interned names are never freed (``InternedNames`` keeps
        /// each for the life of the process), so the reference needs no count.
        case interned(Unmanaged<InternedName>)
        case plain(String)
    }
    private let storage: Storage

    /// The name, interned in `table` when it has room.
    init(_ name: String, in table: InternedNames = .shared) {
        if let interned = table.intern(name) {
            storage = .interned(interned)
        } else {
            storage = .plain(name)
        }
    }

    /// The name's text.
    var text: String {
        switch storage {
        case .interned(let name): name._withUnsafeGuaranteedRef { $0.text }
        case .plain(let text): text
        }
    }

    /// Whether the name is interned (for tests).
    var isInterned: Bool {
        if case .interned = storage { return true }
        return false
    }

    /// The interned object's identity; nil for a plain name (for tests).
    var objectIdentity: ObjectIdentifier? {
        guard case .interned(let name) = storage else { return nil }
        return ObjectIdentifier(name.takeUnretainedValue())
    }

    static func == (lhs: PublisherName, rhs: PublisherName) -> Bool {
        // A table interns a name at most once, so two names interned in
        // the process's one table are equal exactly when they are the same
        // object. (A plain name is one the full table does not hold.)
        if case .interned(let left) = lhs.storage, case .interned(let right) = rhs.storage {
            return left.toOpaque() == right.toOpaque()
        }
        return lhs.text == rhs.text
    }

    func hash(into hasher: inout Hasher) { hasher.combine(text) }
}

/// One interned name; never freed.
final class InternedName: Sendable {
    let text: String
    init(_ text: String) { self.text = text }
}

/// The process's interned publisher names.
final class InternedNames: Sendable {
    static let shared = InternedNames(limit: PublisherName.internedLimit)

    private let names = Mutex<[String: Unmanaged<InternedName>]>([:])
    private let limit: Int

    init(limit: Int) { self.limit = limit }

    /// The name's one interned object; nil when the table is full and the
    /// name is not in it.
    func intern(_ text: String) -> Unmanaged<InternedName>? {
        names.withLock { names in
            if let known = names[text] { return known }
            guard names.count < limit else { return nil }
            // Retained once here and never released: the table is never emptied.
            let interned = Unmanaged.passRetained(InternedName(text))
            names[text] = interned
            return interned
        }
    }

    /// Names interned so far.
    var count: Int { names.withLock { $0.count } }
}
