/// The one machine spelling of an alert decision: the lower snake_case of
/// its `.proto` value (`SENT` → `sent`, `STALE_PRICE` → `stale_price`,
/// `NOT_ALERTABLE` → `not_alertable`).
///
/// Every surface that writes a decision as a word uses it: the metrics
/// label (`farelens_alerts_decided_total{decision=…}`), analytics reports
/// (text and `--json`), `farelensctl alerts history`'s table and its
/// `--decision` option. The table of spellings is in docs/alerts.md,
/// "Decisions and their names". Protobuf's JSON (the app's API, a
/// protobuf message printed by `--json`) writes the `.proto` name itself,
/// the same word upper-cased (`NOT_ALERTABLE`).
extension AlertDecision {
    /// The decisions the alerts service records, in `.proto` order: every
    /// value but the unset `ALERT_DECISION_UNSPECIFIED`.
    public static let recorded: [AlertDecision] = [.sent, .held, .deduped, .capped, .muted, .stalePrice, .notAlertable]

    /// The decision's name (`not_alertable`); nil for the unset value and a
    /// value this build does not know, which have none.
    public var name: String? {
        switch self {
        case .sent: "sent"
        case .held: "held"
        case .deduped: "deduped"
        case .capped: "capped"
        case .muted: "muted"
        case .stalePrice: "stale_price"
        case .notAlertable: "not_alertable"
        case .unspecified, .UNRECOGNIZED: nil
        }
    }

    /// The decision named `name` (``name``), ignoring case, so the
    /// `.proto` name protobuf's JSON prints (`NOT_ALERTABLE`) is read too;
    /// nil for any other word.
    public init?(name: some StringProtocol) {
        let lowered = name.lowercased()
        guard let found = Self.recorded.first(where: { $0.name == lowered }) else { return nil }
        self = found
    }

    /// The names of ``recorded``, comma-separated, for a help text or an
    /// error listing what is accepted: "sent, held, …, not_alertable".
    public static var names: String { recorded.compactMap(\.name).joined(separator: ", ") }
}
