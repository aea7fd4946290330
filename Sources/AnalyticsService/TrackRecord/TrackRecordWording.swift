import FareLensMessages

/// The track record's sentences: they state the counts and what the
/// re-check did, never more (under ``minimumAlerts`` alerts, no claim).
enum TrackRecordWording {
    /// Fewer alerts than this (sent and stopped) in a window: "not enough alerts yet".
    static let minimumAlerts = 20

    static func window(days: Int, sent: Int, stopped: Int, route: String?) -> TrackRecordWindow {
        var window = TrackRecordWindow()
        window.days = Int32(days)
        window.alertsSent = Int32(clamping: sent)
        window.stoppedByRecheck = Int32(clamping: stopped)
        let decided = sent + stopped
        window.phantomShareStopped = decided == 0 ? 0 : Double(stopped) / Double(decided)
        window.enoughAlerts = decided >= minimumAlerts
        let scope = route.map { "on \($0) " } ?? ""
        if window.enoughAlerts, stopped == 0 {
            window.summary = "In the last \(days) days we sent \(sent) alert\(sent == 1 ? "" : "s") \(scope)and the re-check of the fare just before sending "
                + "stopped none: it found no fare that had risen."
        } else if window.enoughAlerts {
            let share = Int((window.phantomShareStopped * 100).rounded())
            window.summary = "In the last \(days) days we sent \(sent) alert\(sent == 1 ? "" : "s") \(scope)and the re-check of the fare just before sending "
                + "stopped \(stopped) more whose fare had risen: \(share)% of the alerts we were about to send would have been phantom fares."
        } else {
            window.summary = "Not enough alerts yet \(scope)in the last \(days) days to show a track record (\(decided) of the \(minimumAlerts) it needs)."
        }
        return window
    }
}
