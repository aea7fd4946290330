public import NIOCore

/// A task executor that runs jobs on one NIO event loop, so a task started
/// there with this preference (and the default actors it calls while they
/// are free) runs on the loop's thread instead of hopping to the global
/// concurrency pool and back. The bridge answers requests this way: decode,
/// route, handle and write the reply on the connection's own thread
/// (docs/decisions/0008-requests-answered-on-the-event-loop.md).
///
/// Anything such a task does blocks the loop's I/O while it runs: handlers
/// must not block a thread waiting for the loop (they never can: the bus
/// has no blocking API). A spoke's callers may prefer their connection's
/// loop the same way (``BridgeSpoke/executor``).
public final class EventLoopTaskExecutor: TaskExecutor {
    /// The loop every job runs on.
    public let eventLoop: any EventLoop

    /// An executor for `eventLoop`.
    public init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Runs `job` on the loop, after whatever the loop has queued already.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { [self] in
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
