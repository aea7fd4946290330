import FareLensMessages

/// The track record's sentences: they state the counts and what the
/// re-check did, never more (under ``minimumAlerts`` alerts, no claim).
enum TrackRecordWording {
    /// Fewer alerts than this (sent and stopped) in a window: "not enough alerts yet".
    static let minimumAlerts = 20
    /// Fewer re-checked clicks than this in a window: no share of clicks that found their fare.
    static let minimumClicks = 20

    /// A window's clicks to book, by what the re-check after each found.
    struct Clicks: Equatable {
        var count = 0
        /// At the clicked price or lower.
        var stillThere = 0
        /// Only higher, or gone.
        var risen = 0
        var simulated = 0
        /// Re-checked with an answer (the others: search could not say, or not yet).
        var rechecked: Int { stillThere + risen }
    }

    static func window(days: Int, sent: Int, confirmed: Int, stopped: Int, simulated: Int, clicks: Clicks = Clicks(), route: String?) -> TrackRecordWindow {
        var window = TrackRecordWindow()
        window.days = Int32(days)
        window.alertsSent = Int32(clamping: sent)
        window.confirmedByRecheck = Int32(clamping: confirmed)
        window.stoppedByRecheck = Int32(clamping: stopped)
        window.simulatedAlerts = Int32(clamping: simulated)
        window.clicks = Int32(clamping: clicks.count)
        window.clicksFareStillThere = Int32(clamping: clicks.stillThere)
        window.clicksFareRisen = Int32(clamping: clicks.risen)
        window.simulatedClicks = Int32(clamping: clicks.simulated)
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
        }
        if window.enoughAlerts, sent > 0, confirmed >= sent {
            window.summary += " Every one sent went out after the re-check found its fare at the alerted price or lower."
        } else if window.enoughAlerts, sent > 0 {
            // Rounded down: the share never claims more than the count.
            let share = Int((Double(confirmed) / Double(sent) * 100).rounded(.down))
            window.summary += " \(confirmed) of the \(sent) sent (\(share)%) went out after the re-check found the fare at the alerted price or lower; "
                + "it could not confirm the others (search could not say, or they were not delivered yet)."
        }
        if !window.enoughAlerts {
            window.summary = "Not enough alerts yet \(scope)in the last \(days) days to show a track record (\(decided) of the \(minimumAlerts) it needs)."
        }
        window.summary += clickSentence(clicks)
        // Like every simulated fare: labelled, whatever the counts.
        if simulated > 0, simulated >= decided {
            window.summary += " Simulated: every one of these alerts was on the simulated market's fares, not real ones."
        } else if simulated > 0 {
            window.summary += " Simulated: \(simulated) of these \(decided) alerts were on the simulated market's fares, not real ones."
        }
        if clicks.simulated > 0, clicks.simulated >= clicks.count {
            window.summary += clicks.count == 1 ? " Simulated: the click was on the simulated market's fares." : " Simulated: every one of these clicks was on the simulated market's fares."
        } else if clicks.simulated > 0 {
            window.summary += " Simulated: \(clicks.simulated) of these \(clicks.count) clicks \(clicks.simulated == 1 ? "was" : "were") on the simulated market's fares."
        }
        return window
    }

    /// What the clicks' re-checks found, as a share only from ``minimumClicks`` re-checked clicks.
    static func clickSentence(_ clicks: Clicks) -> String {
        guard clicks.count > 0 else { return "" }
        let notRechecked = clicks.count - clicks.rechecked
        let others = notRechecked == 0 ? "" : " (\(notRechecked) other\(notRechecked == 1 ? "" : "s") could not be re-checked, or not yet)"
        guard clicks.rechecked >= minimumClicks else {
            return " \(clicks.count) click\(clicks.count == 1 ? "" : "s") to book: not enough re-checked yet to say how many found their fare "
                + "(\(clicks.rechecked) of the \(minimumClicks) it needs)."
        }
        // Rounded down: the share never claims more than the count.
        let share = Int((Double(clicks.stillThere) / Double(clicks.rechecked) * 100).rounded(.down))
        return " Of \(clicks.rechecked) clicks to book re-checked just after the click, \(clicks.stillThere) (\(share)%) found the fare still at the clicked price or lower\(others)."
    }
}
