public import GRDB
internal import GRDBSQLite

/// Values bound by position to a prepared statement through SQLite's C
/// interface (1-based, in the order of the statement's `?`).
public struct StatementValues: ~Copyable {
    fileprivate let handle: OpaquePointer
    fileprivate var next: Int32 = 1
    fileprivate var failure: Int32 = SQLITE_OK

    fileprivate init(handle: OpaquePointer) { self.handle = handle }

    /// Binds text (copied by SQLite) as GRDB binds it: its UTF-8 bytes up to
    /// the first NUL, if it has one; the empty string as empty text, not NULL.
    ///
    /// Through `withUTF8` with the byte count: a native string lends its
    /// bytes and a small one (15 bytes or fewer: most codes and ids) is
    /// copied to the stack. Passing the `String` as a C string instead made a
    /// heap copy of every small one and had SQLite measure it with `strlen`
    /// (docs/performance.md, the held decision's transaction).
    public mutating func bind(_ text: String) {
        var text = text
        let handle = handle, index = next
        let code = text.withUTF8 { bytes -> Int32 in
            let length = bytes.firstIndex(of: 0) ?? bytes.count
            guard let start = bytes.baseAddress, length > 0 else { return sqlite3_bind_text(handle, index, "", 0, transient) }
            guard let count = Int32(exactly: length) else { return SQLITE_TOOBIG }
            return start.withMemoryRebound(to: CChar.self, capacity: length) { sqlite3_bind_text(handle, index, $0, count, transient) }
        }
        record(code)
    }

    /// Binds an integer.
    public mutating func bind(_ value: Int64) { record(sqlite3_bind_int64(handle, next, value)) }

    /// Binds an integer.
    public mutating func bind(_ value: Int) { bind(Int64(value)) }

    /// Binds a real.
    public mutating func bind(_ value: Double) { record(sqlite3_bind_double(handle, next, value)) }

    /// Binds `bytes` as a blob (copied by SQLite); an empty one as an empty blob, not NULL.
    public mutating func bind(blob bytes: [UInt8]) {
        guard !bytes.isEmpty else { return record(sqlite3_bind_zeroblob(handle, next, 0)) }
        bytes.withUnsafeBytes { raw in record(sqlite3_bind_blob(handle, next, raw.baseAddress, Int32(raw.count), transient)) }
    }

    /// Binds a boolean as 0 or 1 (how GRDB stores one).
    public mutating func bind(_ value: Bool) { bind(Int64(value ? 1 : 0)) }

    private mutating func record(_ code: Int32) {
        if code != SQLITE_OK, failure == SQLITE_OK { failure = code }
        next += 1
    }
}

/// SQLite's SQLITE_TRANSIENT: it copies the bytes before the call returns.
private let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

extension Statement {
    /// Executes this statement (an INSERT, UPDATE or DELETE that returns no
    /// rows) with values bound straight through SQLite's C interface, inside
    /// the caller's transaction, and returns how many rows it changed.
    ///
    /// For the few statements run once per ingested event or decision
    /// (inbox rows, history folds, alert rows): GRDB's `execute(arguments:)` builds an array of
    /// existential values and binds each through its protocols, which cost
    /// about as much as SQLite's own work there (docs/decisions/0007).
    /// Everything else uses GRDB's API. What this skips: GRDB's argument
    /// validation (`bindings` must bind every `?`: asserted in debug builds;
    /// one too many fails with SQLITE_RANGE, one too few binds NULL) and its per-statement hooks
    /// (transaction observers and authorizers: none watch these tables).
    ///
    /// - Throws: `DatabaseError` with SQLite's code when binding or the step fails.
    @discardableResult
    public func executeBinding(_ bindings: (inout StatementValues) -> Void) throws -> Int {
        let handle = sqliteStatement
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        var values = StatementValues(handle: handle)
        bindings(&values)
        let connection = sqlite3_db_handle(handle)
        guard values.failure == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: values.failure), message: connection.map { String(cString: sqlite3_errmsg($0)) }, sql: sql)
        }
        assert(values.next - 1 == sqlite3_bind_parameter_count(handle), "every ? of \(sql) is bound")
        let code = sqlite3_step(handle)
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: connection.map { String(cString: sqlite3_errmsg($0)) }, sql: sql)
        }
        return Int(sqlite3_changes(connection))
    }
}
