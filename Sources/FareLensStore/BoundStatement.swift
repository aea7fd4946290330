public import GRDB
internal import GRDBSQLite

/// Values bound by position to a prepared statement through SQLite's C
/// interface (1-based, in the order of the statement's `?`).
public struct StatementValues: ~Copyable {
    fileprivate let handle: OpaquePointer
    fileprivate var next: Int32 = 1
    fileprivate var failure: Int32 = SQLITE_OK
    /// Where text and blobs are copied and lent to SQLite (`SQLITE_STATIC`)
    /// until the statement is reset: a buffer on the stack of
    /// ``GRDB/Statement/executeBinding(_:)``, which clears the bindings
    /// before it returns.
    private let lent: UnsafeMutableRawBufferPointer
    private var lentCount = 0

    fileprivate init(handle: OpaquePointer, lent: UnsafeMutableRawBufferPointer) {
        self.handle = handle
        self.lent = lent
    }

    /// The bytes the buffer for lent values holds: on the stack whatever the
    /// thread (Swift stack-allocates a temporary allocation of up to 1,024
    /// bytes without asking), and enough for an alert row's text.
    static let lentCapacity = 1_024

    /// Binds text as GRDB binds it: its UTF-8 bytes up to the first NUL, if
    /// it has one; the empty string as empty text, not NULL.
    ///
    /// The bytes are copied into the lent buffer and SQLite reads them there
    /// (`SQLITE_STATIC`); once the buffer is full, SQLite copies them
    /// (`SQLITE_TRANSIENT`). Copied by SQLite, every text cost an allocation
    /// in `sqlite3VdbeMemGrow` and its release at the reset: a tenth of the
    /// held decisions' writer (docs/performance.md, "Text lent to SQLite").
    /// Through `withUTF8` with the byte count: a native string lends its
    /// bytes and a small one (15 bytes or fewer: most codes and ids) is
    /// copied to the stack. Passing the `String` as a C string instead made a
    /// heap copy of every small one and had SQLite measure it with `strlen`
    /// (docs/performance.md, the held decision's transaction).
    public mutating func bind(_ text: String) {
        var text = text
        let code = text.withUTF8 { bytes -> Int32 in
            let length = bytes.firstIndex(of: 0) ?? bytes.count
            guard length > 0 else { return sqlite3_bind_text(handle, next, "", 0, transient) }
            guard let count = Int32(exactly: length) else { return SQLITE_TOOBIG }
            let (start, destructor) = lend(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[..<length])))
            return sqlite3_bind_text(handle, next, start?.assumingMemoryBound(to: CChar.self), count, destructor)
        }
        record(code)
    }

    /// `bytes`, copied into the lent buffer when they fit (SQLite then reads
    /// them there), or themselves with `SQLITE_TRANSIENT` (SQLite copies them
    /// before the bind returns).
    private mutating func lend(_ bytes: UnsafeRawBufferPointer) -> (UnsafeRawPointer?, sqlite3_destructor_type?) {
        guard let source = bytes.baseAddress, let buffer = lent.baseAddress, bytes.count <= lent.count - lentCount else {
            return (bytes.baseAddress, transient)
        }
        let destination = buffer + lentCount
        destination.copyMemory(from: source, byteCount: bytes.count)
        lentCount += bytes.count
        return (UnsafeRawPointer(destination), lentToSQLite)
    }

    /// Binds an integer.
    public mutating func bind(_ value: Int64) { record(sqlite3_bind_int64(handle, next, value)) }

    /// Binds an integer.
    public mutating func bind(_ value: Int) { bind(Int64(value)) }

    /// Binds a real.
    public mutating func bind(_ value: Double) { record(sqlite3_bind_double(handle, next, value)) }

    /// Binds `bytes` as a blob, lent like text (``bind(_:)-(String)``); an
    /// empty one as an empty blob, not NULL.
    public mutating func bind(blob bytes: [UInt8]) {
        guard !bytes.isEmpty else { return record(sqlite3_bind_zeroblob(handle, next, 0)) }
        guard let count = Int32(exactly: bytes.count) else { return record(SQLITE_TOOBIG) }
        let code = bytes.withUnsafeBytes { raw -> Int32 in
            let (start, destructor) = lend(raw)
            return sqlite3_bind_blob(handle, next, start, count, destructor)
        }
        record(code)
    }

    /// Binds a boolean as 0 or 1 (how GRDB stores one).
    public mutating func bind(_ value: Bool) { bind(Int64(value ? 1 : 0)) }

    private mutating func record(_ code: Int32) {
        if code != SQLITE_OK, failure == SQLITE_OK { failure = code }
        next += 1
    }
}

/// SQLite's SQLITE_TRANSIENT: it copies the bytes before the call returns.
private let transient: sqlite3_destructor_type? = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

/// SQLite's SQLITE_STATIC: it reads the bytes where they are, until the
/// statement is reset and its bindings cleared.
private let lentToSQLite: sqlite3_destructor_type? = nil

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
        // `sql` only on the error paths: GRDB's getter builds and trims a copy of the SQL at every call (read up front
        // for every row, it cut held decisions to a third).
        let handle = sqliteStatement
        return try withUnsafeTemporaryAllocation(byteCount: StatementValues.lentCapacity, alignment: 1) { lent throws -> Int in
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
            // Every way out resets the statement and clears its bindings: SQLite keeps no pointer into `lent`.
            defer {
                sqlite3_reset(handle)
                sqlite3_clear_bindings(handle)
            }
            var values = StatementValues(handle: handle, lent: lent)
            bindings(&values)
            let connection = sqlite3_db_handle(handle)
            guard values.failure == SQLITE_OK else {
                throw DatabaseError(resultCode: ResultCode(rawValue: values.failure), message: connection.map { String(cString: sqlite3_errmsg($0)) }, sql: sql)
            }
            assert(values.next - 1 == sqlite3_bind_parameter_count(handle), "every ? of \(sql) is bound")
            let code = sqlite3_step(handle)
            guard code == SQLITE_DONE else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: connection.map { String(cString: sqlite3_errmsg($0)) }, sql: sql)
            }
            return Int(sqlite3_changes(connection))
        }
    }
}
