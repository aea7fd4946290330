public import Foundation
public import GRDB

/// The durable events one consumer applied from one publisher in one
/// transaction: a row of the inbox's table, `inbox_batch` (migration
/// `store-v2-inbox-batches`), in the consumer service's own database.
///
/// A consumer applying 1,024 events in a transaction writes one of these,
/// not 1,024 rows: the per-event row with its key and index was about a
/// fifth of a held alert decision's cost (docs/decisions/0013).
public struct InboxBatchRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "inbox_batch"
    /// Who applied them (a service, or one concern inside it).
    public var consumer: String
    /// The events' publisher (``InboxKey/publisher``).
    public var publisher: String
    /// The lowest of ``sequences``, as SQLite's signed integer.
    public var firstSequence: Int64
    /// The highest of ``sequences``; unique per consumer and publisher, since
    /// an event is recorded once.
    public var lastSequence: Int64
    /// Every sequence applied, ascending (as signed integers), 8 bytes each,
    /// little-endian (``InboxSequences``).
    public var sequences: Data
    /// When they were applied, Unix epoch milliseconds (for pruning).
    public var appliedAtUnixMs: Int64
}

extension InboxBatchRecord {
    /// The row holding `sorted` (ascending, not empty), its lowest and
    /// highest sequence taken from it.
    public init(consumer: String, publisher: String, sorted: [Int64], appliedAtUnixMs: Int64) {
        self.init(
            consumer: consumer, publisher: publisher, firstSequence: sorted.first ?? 0, lastSequence: sorted.last ?? 0,
            sequences: InboxSequences.encode(sorted), appliedAtUnixMs: appliedAtUnixMs)
    }
}

/// The `sequences` column of ``InboxBatchRecord``: sequences as signed
/// 64-bit integers (an unsigned sequence's bit pattern), ascending, each 8
/// bytes little-endian, so membership is a binary search over the bytes.
public enum InboxSequences {
    /// Bytes per sequence.
    public static let width = 8

    /// The column's bytes for `sorted` (ascending).
    public static func encode(_ sorted: [Int64]) -> Data {
        var data = Data(count: sorted.count * width)
        data.withUnsafeMutableBytes { bytes in
            for (index, sequence) in sorted.enumerated() {
                bytes.storeBytes(of: sequence.littleEndian, toByteOffset: index * width, as: Int64.self)
            }
        }
        return data
    }

    /// The sequences in `data`, in stored order; trailing bytes short of a whole sequence are ignored.
    public static func decode(_ data: Data) -> [Int64] {
        data.withUnsafeBytes { bytes in
            (0..<bytes.count / width).map { Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: $0 * width, as: Int64.self)) }
        }
    }

    /// Whether `data` (ascending) holds `sequence`.
    public static func contains(_ data: Data, _ sequence: Int64) -> Bool {
        data.withUnsafeBytes { bytes in
            var low = 0
            var high = bytes.count / width
            while low < high {
                let middle = (low + high) / 2
                let value = Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: middle * width, as: Int64.self))
                if value == sequence { return true }
                if value < sequence { low = middle + 1 } else { high = middle }
            }
            return false
        }
    }
}
