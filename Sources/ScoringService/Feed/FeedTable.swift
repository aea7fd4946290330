import FareLensMessages

/// The current deals in the feed's base order (``DealRanking/baseOrder(_:_:)``),
/// laid out for one feed request: the rows side by side for the scan, and
/// each deal's ready feed item for the answer. ``ScoringService`` makes it
/// after the current deals change (ingest, housekeeping) and reuses it for
/// every request until the next change.
struct FeedTable: Sendable {
    let entries: [FeedEntry]
    /// `entries[i].row`, contiguous.
    let rows: [FeedRow]
    /// `entries[i].item`, contiguous.
    let items: [FeedItem]

    /// `entries`, in any order, sorted into base order.
    init(_ entries: some Sequence<FeedEntry>) {
        self.init(baseOrdered: entries.sorted(by: DealRanking.baseOrder))
    }

    /// `entries`, already in base order.
    init(baseOrdered entries: [FeedEntry]) {
        self.entries = entries
        rows = entries.map(\.row)
        items = entries.map(\.item)
    }
}
