/// Whether a bridge connection is open, and what waits for it to close:
/// a state machine without I/O. ``PeerConnection`` keeps it under its lock
/// and runs what its transitions return outside it.
struct PeerLifecycle {
    private enum State {
        /// Open; `onClose` runs once it closes.
        case open(onClose: [@Sendable () -> Void])
        /// Closed, for the first reason given.
        case closed(reason: String)
    }

    private var state: State = .open(onClose: [])

    /// Why it closed; nil while it is open.
    var closeReason: String? {
        if case .closed(let reason) = state { reason } else { nil }
    }

    /// Keeps `action` for the close and returns nil; once closed, returns
    /// `action` for the caller to run now.
    mutating func whenClosed(_ action: @escaping @Sendable () -> Void) -> (@Sendable () -> Void)? {
        switch state {
        case .open(var onClose):
            onClose.append(action)
            state = .open(onClose: onClose)
            return nil
        case .closed:
            return action
        }
    }

    /// Closes for `reason` and returns the actions kept for the close, in
    /// the order they were given. Closing again returns none and keeps the
    /// first reason.
    mutating func close(reason: String) -> [@Sendable () -> Void] {
        switch state {
        case .open(let onClose):
            state = .closed(reason: reason)
            return onClose
        case .closed:
            return []
        }
    }
}
