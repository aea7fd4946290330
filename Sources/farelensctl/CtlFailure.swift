import ArgumentParser
import FareLensBus
import FareLensWire

/// A failure as farelensctl reports it: a stable code, one line of message
/// and, when one option or field is at fault, its name.
///
/// Without `--json` it is printed as `farelensctl: error: MESSAGE` on
/// stderr; with `--json` as one object on stdout,
/// `{"error":{"code":…,"message":…,"field":…}}`, so a script reads every
/// outcome from the same stream. Either way the exit status is
/// ``exitStatus``: 64 for a usage error (refused before connecting), 1 otherwise.
struct CtlFailure: Error, CustomStringConvertible {
    /// Stable and kebab-case: a service's own code (`invalid-field`,
    /// `unknown-user`), a bus kind (`timeout`, `service-unavailable`), a
    /// socket fault (`socket-unavailable`), or `usage`.
    let code: String
    let message: String
    /// The option (`--limit`) or the request field (`departure_date`) at fault, if one is.
    let field: String?
    let exitStatus: Int32
    /// The line printed without `--json` (after `farelensctl: error: `):
    /// the message, with a bus error's kind and code as the bus words them
    /// (`subscription: remote [unknown-user]: no user 'u-1'`).
    let line: String

    init(code: String, _ message: String, field: String? = nil, exitStatus: Int32 = 1, line: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
        self.exitStatus = exitStatus
        self.line = line ?? message
    }

    var description: String { line }

    /// A usage error: a bad option or value, refused before connecting; the
    /// option is the first `--name` the message starts with, if any.
    static func usage(_ message: String, exitStatus: Int32 = 64) -> CtlFailure {
        let first = message.split(separator: " ", maxSplits: 1).first.map(String.init) ?? ""
        let option = first.hasPrefix("--") ? String(first.prefix { $0 != ":" && $0 != "=" && $0 != "," }) : nil
        return CtlFailure(code: "usage", message, field: option, exitStatus: exitStatus)
    }

    /// `error` as reported for a request to `address` (nil: no one request
    /// was at fault) under a budget of `timeoutMs`.
    init(_ error: any Error, address: String? = nil, timeoutMs: Int? = nil) {
        let prefix = address.map { "\($0): " } ?? ""
        switch error {
        case let failure as CtlFailure:
            self = failure
        case let failure as WireProtocolError where failure.message.contains("sent no welcome") && timeoutMs != nil:
            // The spoke words its hello deadline as a Duration ("0.001 seconds"); the budget is what the user set.
            self.init(code: failure.codeName, failure.message + " (the --timeout-ms budget of \(timeoutMs ?? 0) ms; raise it)", field: "--timeout-ms")
        case let failure as WireProtocolError:
            self.init(code: failure.codeName, failure.message)
        case let failure as BusError where failure.kind == .remote:
            self.init(code: failure.remoteCode ?? "remote", prefix + failure.message, field: failure.field, line: prefix + failure.description)
        case let failure as BusError where failure.kind == .timeout:
            // The bus words a deadline as a Duration ("0.000867843 seconds"); the budget is what the user set.
            let budget = timeoutMs.map { "within the --timeout-ms budget of \($0) ms (raise it for slow work)" } ?? "in time"
            self.init(code: "timeout", prefix + "no response " + budget, field: timeoutMs == nil ? nil : "--timeout-ms")
        case let failure as BusError:
            self.init(code: failure.kind.name, prefix + failure.message, line: prefix + failure.description)
        case let failure as ValidationError:
            self = .usage(failure.message)
        default:
            self.init(code: "failed", prefix + String(describing: error))
        }
    }
}
