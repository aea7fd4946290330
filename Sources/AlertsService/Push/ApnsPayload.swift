import FareLensMessages
import Foundation

/// The JSON an alert is pushed as (docs/push.md § Payloads, the app's
/// contract): APNs' `aps` dictionary with the visible alert, and the alert's
/// own keys beside it. Fixed when the alert is accepted into the outbox,
/// like every channel's body, and at most ``maxBytes`` (APNs refuses larger
/// ones with 413 PayloadTooLarge): the body, then the title, is shortened
/// to fit, never the keys the app acts on.
///
/// ```json
/// {"alert_id":"a…","aps":{"alert":{"body":"Save 35% vs average.","title":"Tokyo deal dropped to $650"},
///  "category":"DEAL_ALERT","sound":"default","thread-id":"route.LAX-HND"},
///  "deal_id":"d…","kind":"exceptional_deal","route":"LAX-HND","simulated":false,
///  "track_record":"In the last 30 days we sent 25 alerts on LAX→HND and the re-check … stopped none: …"}
/// ```
struct ApnsPayload: Sendable, Equatable {
    /// APNs' limit for a visible or background notification.
    static let maxBytes = 4096

    var alertID: String
    var kind: String
    var title: String
    var body: String
    /// "DEAL_ALERT" (view, mute route, pause), "DIGEST" (view, pause) or "NOTICE" (view).
    var category: String
    /// `ORIGIN-DESTINATION`, empty for digests and notices.
    var route: String
    var dealID: String
    var watchlistID: String
    var simulated: Bool
    /// The route's 30-day track record in one sentence (analytics' summary); empty: none known.
    var trackRecord = ""

    init(_ row: AlertRow) {
        alertID = row.alertID
        kind = AlertPayload.kindName(row.kindValue)
        title = row.title
        body = row.body
        let actions = Set(AlertPayload.actionNames(row.actions))
        category = actions.contains("mute_route") ? "DEAL_ALERT" : actions.contains("pause") ? "DIGEST" : "NOTICE"
        route = row.origin.isEmpty ? "" : "\(row.origin)-\(row.destination)"
        dealID = row.dealID
        watchlistID = row.watchlistID
        simulated = row.simulated
    }

    /// The grouping on the lock screen: one thread per route, one for
    /// digests and notices.
    var threadID: String { route.isEmpty ? "farelens.\(kind)" : "route.\(route)" }

    /// The bytes pushed: keys sorted, at most ``maxBytes``.
    func jsonBytes() -> [UInt8] {
        var bytes = encoded(title: title, body: body)
        guard bytes.count > Self.maxBytes else { return bytes }
        // Shorten the body, then the title, by the excess (in characters: at least as many bytes), with an ellipsis.
        var body = self.body
        var title = self.title
        while bytes.count > Self.maxBytes {
            let excess = bytes.count - Self.maxBytes + 1
            if body.count > 1 {
                body = String(body.prefix(max(0, body.count - excess))) + "…"
            } else if title.count > 1 {
                body = ""
                title = String(title.prefix(max(0, title.count - excess))) + "…"
            } else {
                break  // only the keys are left: cannot happen with ids of bounded length
            }
            bytes = encoded(title: title, body: body)
        }
        return bytes
    }

    private func encoded(title: String, body: String) -> [UInt8] {
        var writer = JSONText()
        writer.open()
        writer.member("alert_id", alertID)
        writer.key("aps")
        writer.open()
        writer.key("alert")
        writer.open()
        writer.member("body", body)
        writer.member("title", title)
        writer.close()
        writer.member("category", category)
        writer.member("sound", "default")
        writer.member("thread-id", threadID)
        writer.close()
        if !dealID.isEmpty { writer.member("deal_id", dealID) }
        writer.member("kind", kind)
        if !route.isEmpty { writer.member("route", route) }
        writer.member("simulated", simulated)
        if !trackRecord.isEmpty { writer.member("track_record", trackRecord) }
        if !watchlistID.isEmpty { writer.member("watchlist_id", watchlistID) }
        writer.close()
        return writer.bytes
    }
}
