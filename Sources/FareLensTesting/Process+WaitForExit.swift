public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension Process {
    /// Waits, blocking this thread, until the child has exited, and returns
    /// its status as Foundation reports it (the exit code, or the signal
    /// that ended it). The child is left for Foundation to reap (`waitid`
    /// with `WNOWAIT`); when Foundation reaped it first, its own status is
    /// used.
    ///
    /// Not `waitUntilExit()`: on Linux that spins a run loop, a full core,
    /// until Foundation's monitor (a libdispatch source) has seen the exit;
    /// in a loaded test run the spinning threads and the late source held
    /// `FinishedProcessTests`' runs past their 20 s bound.
    @discardableResult
    public func waitForExit() -> Int32 {
        var info = siginfo_t()
        while waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOWAIT) != 0 {
            guard errno == EINTR else {
                // Reaped by Foundation already: its status is known, or about to be.
                waitUntilExit()
                return terminationStatus
            }
        }
        return info._sifields._sigchld.si_status
    }
}
