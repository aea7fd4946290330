/// How a request handler runs relative to its caller.
public enum HandlerExecution: Sendable {
    /// The handler runs in the caller's task, like a function call (the
    /// default: about one actor hop of overhead, see docs/performance.md).
    ///
    /// Cancellation of the caller reaches the handler directly. The deadline
    /// is checked before dispatch and when the handler returns (a late reply
    /// becomes ``BusError/Kind/timeout``), and every request the handler
    /// makes inherits it. A handler that waits on something that honours
    /// neither deadline nor cancellation holds its caller: such handlers must
    /// use ``isolated``.
    case inline
    /// The handler runs in a task of its own. The caller is released with
    /// ``BusError/Kind/timeout`` at the deadline even if the handler never
    /// returns, and with ``BusError/Kind/cancelled`` as soon as its own task
    /// is cancelled; the handler's task is cancelled in both cases. Costs one
    /// task per request (microseconds).
    case isolated
}
