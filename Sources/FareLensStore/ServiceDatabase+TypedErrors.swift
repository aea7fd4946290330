public import GRDB

/// Transactions for a service whose requests fail with its own error type:
/// the body's own errors come out as they are, and anything else (SQLite,
/// a full disk) becomes the service's storage error, which keeps it as its cause.
extension ServiceDatabase {
    /// A write transaction; see the extension's summary.
    public func write<T: Sendable, E: Error>(
        _ body: @Sendable (Database) throws(E) -> T, storageError: (any Error) -> E
    ) throws(E) -> T {
        do {
            // The pool's own write, not `write(_:)`: that one turns every error into a StoreError.
            return try writer.write { db in try body(db) }
        } catch let error as E {
            throw error
        } catch {
            throw storageError(error)
        }
    }

    /// A write transaction awaited rather than waited for, so the calling
    /// actor, and its thread, are free while the writer finishes whatever
    /// it is in the middle of (a long batch of another task's). It runs in a
    /// task of its own, so it is not cancelled with the caller: a graceful
    /// stop lets a write the service has started commit.
    public func writeToEnd<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let writer = self.writer
        return try await Task { try await writer.write(body) }.value
    }

    /// ``writeToEnd(_:)`` with the errors of ``write(_:storageError:)``.
    public func writeToEnd<T: Sendable, E: Error>(
        _ body: @escaping @Sendable (Database) throws(E) -> T, storageError: (any Error) -> E
    ) async throws(E) -> T {
        do {
            return try await writeToEnd { db in try body(db) }
        } catch let error as E {
            throw error
        } catch {
            throw storageError(error)
        }
    }

    /// A read; any failure becomes the service's storage error.
    public func read<T: Sendable, E: Error>(_ body: @Sendable (Database) throws -> T, storageError: (any Error) -> E) throws(E) -> T {
        do {
            return try writer.read { db in try body(db) }
        } catch {
            throw storageError(error)
        }
    }
}
