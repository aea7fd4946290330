import FareLensMessages
import SwiftProtobuf

/// A check's scanned trips as the `watchlist` table keeps them
/// (`lastScannedPairs`): protobuf's JSON of a ``WatchlistCheck`` holding
/// only its `scanned_pairs`, so the column reads back as the wire has it.
enum ScannedPairsText {
    /// The column's text; empty for none.
    static func text(_ pairs: [ScannedDatePair]) -> String {
        guard !pairs.isEmpty else { return "" }
        var holder = WatchlistCheck()
        holder.scannedPairs = pairs
        return (try? holder.jsonString()) ?? ""
    }

    /// The pairs back; none for an empty (or unreadable) column.
    static func pairs(_ text: String) -> [ScannedDatePair] {
        guard !text.isEmpty, let holder = try? WatchlistCheck(jsonString: text) else { return [] }
        return holder.scannedPairs
    }
}
