/// One current deal as the feed filters and ranks it: plain numbers only
/// (codes interned by ``FeedCodes``), so a feed's rows lie contiguously in
/// memory and a scan of 10,000 deals touches no object and no string.
struct FeedRow: Sendable {
    var price: Int64
    var expiresAtUnixMs: Int64
    var score: Int32
    /// Days since 1970-01-01.
    var departureDay: Int32
    /// `yyyymm` of the departure.
    var departureMonth: Int32
    var stops: Int32
    var origin: Int32
    /// The origin airport's metro; ``FeedCodes/none`` when it has none.
    var originMetro: Int32
    var destination: Int32
    var destinationMetro: Int32
    var carrier: Int32
    var currency: Int32
    /// `Cabin.rawValue`.
    var cabin: Int32
    var international: Bool

    /// Whether the code `id` names the origin (the airport or its metro).
    func departs(from id: Int32) -> Bool { id > FeedCodes.none && (id == origin || id == originMetro) }

    /// Whether the code `id` names the destination (the airport or its metro).
    func arrives(at id: Int32) -> Bool { id > FeedCodes.none && (id == destination || id == destinationMetro) }
}
