/// The affiliate attribution sub-id (SPEC §1, Protos/common.proto):
/// `ios-fl-{dealId}-{watchlist or none}-{placement}-{abVariant}-{tier}`.
///
/// The one definition of the format: search builds it for affiliate links
/// (`BookingOptionsBuilder`), analytics parses it from commission
/// notifications and matches it, as text, to the recorded click.
///
/// **Fields.** Seven parts separated by `-`: `ios`, `fl`, then the deal id,
/// the watchlist id and the A/B variant (each `none` when empty), the
/// placement (`dealcard`, `detail`, `sheet`, `widget`, `alert`) and the tier
/// (`trial`, `pro`, `free`), lower case.
///
/// **Encoding of the free fields.** Deal ids and watchlist ids carry dashes
/// (`d-9f2c4a01b7e3d856`, `w-00c0ffee1234abcd`), and `-` separates the
/// parts, so inside the deal id, watchlist id and A/B variant every `-` is
/// written `__` (two underscores): `d-9f2c…` → `d__9f2c…`. A single `_`
/// stays `_`. To keep that reversible, those fields hold ASCII letters,
/// digits, `-` and `_`, with no `__` and no `_` next to a `-` (`a__b`,
/// `a_-b`, `a-_b` are refused). So a written field is letters, digits and
/// underscores; a run of one `_` reads back as `_`, a run of 2k as k dashes,
/// and an odd run of three or more does not parse. Ids without a dash are
/// written exactly as before.
///
/// **Limits.** Affiliate networks accept only letters, digits, `_` and `-`
/// in a sub-id, and limit its length: each free field as written is at most
/// ``maxFieldLength`` (64) characters, so a sub-id is at most 216.
///
/// **Canonical.** Parsing accepts exactly what building writes:
/// `AttributionSubID(parsing: s)?.text == s` whenever it parses, so one
/// booking has one sub-id and the analytics match by text is sound. An
/// empty field and one that is literally `none` are the same (written
/// `none`, read back empty).
public struct AttributionSubID: Sendable, Hashable, CustomStringConvertible {
    /// "" when there is none.
    public let dealID: String
    /// "" when there is none.
    public let watchlistID: String
    public let placement: BookingPlacement
    /// "" when there is none.
    public let abVariant: String
    public let tier: Tier

    /// The most characters a deal id, watchlist id or A/B variant may take
    /// in the sub-id (after encoding).
    public static let maxFieldLength = 64

    /// Why the fields cannot make a sub-id; `field` is the request field's
    /// name (`deal_id`, `watchlist_id`, `ab_variant`, `placement`, `tier`).
    public struct Invalid: Error, Equatable, Sendable, CustomStringConvertible {
        public enum Code: String, Sendable {
            /// Placement or tier unspecified (or unknown).
            case missing
            /// A character other than an ASCII letter, digit, `-` or `_`.
            case character
            /// Longer than ``AttributionSubID/maxFieldLength`` once encoded.
            case length
            /// `__`, or `_` next to `-`: it would not read back.
            case ambiguous
        }

        public let code: Code
        public let field: String
        public let reason: String

        public var description: String { "\(field): \(reason)" }
    }

    /// The sub-id for these fields.
    ///
    /// - Throws: ``Invalid`` naming the field at fault.
    public init(
        dealID: String, watchlistID: String, placement: BookingPlacement, abVariant: String, tier: Tier
    ) throws(Invalid) {
        guard Self.placementWords[placement] != nil else {
            throw Invalid(code: .missing, field: "placement", reason: "must be dealcard, detail, sheet, widget or alert")
        }
        guard Self.tierWords[tier] != nil else {
            throw Invalid(code: .missing, field: "tier", reason: "must be trial, pro or free")
        }
        self.dealID = try Self.checked(dealID, field: "deal_id")
        self.watchlistID = try Self.checked(watchlistID, field: "watchlist_id")
        self.placement = placement
        self.abVariant = try Self.checked(abVariant, field: "ab_variant")
        self.tier = tier
    }

    /// Reads a sub-id as ``text`` writes it; nil for anything else
    /// (including non-canonical spellings such as `DETAIL` or `d___1`).
    public init?(parsing text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 7, parts[0] == "ios", parts[1] == "fl",
              let placement = Self.placementWords.first(where: { $0.value == parts[4] })?.key,
              let tier = Self.tierWords.first(where: { $0.value == parts[6] })?.key,
              let deal = Self.decoded(parts[2]), let watchlist = Self.decoded(parts[3]), let variant = Self.decoded(parts[5])
        else { return nil }
        dealID = deal
        watchlistID = watchlist
        self.placement = placement
        abVariant = variant
        self.tier = tier
    }

    /// The sub-id as it goes on an affiliate link.
    public var text: String {
        ["ios", "fl", Self.encoded(dealID), Self.encoded(watchlistID), Self.placementWords[placement] ?? "",
         Self.encoded(abVariant), Self.tierWords[tier] ?? ""].joined(separator: "-")
    }

    public var description: String { text }

    // MARK: - The encoding

    static let placementWords: [BookingPlacement: String] = [
        .dealcard: "dealcard", .detail: "detail", .sheet: "sheet", .widget: "widget", .alert: "alert",
    ]
    static let tierWords: [Tier: String] = [.trial: "trial", .pro: "pro", .free: "free"]

    private static func isWordCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "_")
    }

    /// `value` as the sub-id will hold it ("" for `none`), or why it cannot be.
    private static func checked(_ value: String, field: String) throws(Invalid) -> String {
        let value = value == "none" ? "" : value
        guard value.allSatisfy({ isWordCharacter($0) || $0 == "-" }) else {
            throw Invalid(code: .character, field: field, reason: "'\(value)' may hold only ASCII letters, digits, '-' and '_' (it becomes part of the sub-id)")
        }
        guard !value.contains("__"), !value.contains("_-"), !value.contains("-_") else {
            throw Invalid(code: .ambiguous, field: field, reason: "'\(value)' may not hold '__' or '_' next to '-' (the sub-id writes '-' as '__')")
        }
        guard encoded(value).count <= maxFieldLength else {
            throw Invalid(code: .length, field: field, reason: "'\(value)' is longer than \(maxFieldLength) characters in the sub-id ('-' counts two)")
        }
        return value
    }

    /// A checked field as written: `none` when empty, each `-` as `__`.
    private static func encoded(_ value: String) -> String {
        value.isEmpty ? "none" : value.replacing("-", with: "__")
    }

    /// The inverse of ``encoded(_:)``; nil for text it never writes.
    private static func decoded(_ part: Substring) -> String? {
        guard (1 ... maxFieldLength).contains(part.count), part.allSatisfy(isWordCharacter) else { return nil }
        if part == "none" { return "" }
        var value = ""
        var underscores = 0
        func flush() -> Bool {
            switch underscores {
            case 0: break
            case 1: value.append("_")
            case let run where run.isMultiple(of: 2): value.append(String(repeating: "-", count: run / 2))
            default: return false
            }
            underscores = 0
            return true
        }
        for character in part {
            if character == "_" {
                underscores += 1
            } else {
                guard flush() else { return nil }
                value.append(character)
            }
        }
        guard flush() else { return nil }
        return value
    }
}
