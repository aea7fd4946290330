import FareLensBus
import FareLensWire
import Testing
@testable import farelensctl

/// What farelensctl reports for each kind of failure (issue #63: a deadline
/// was worded "no response within 0.000867843 seconds").
@Suite("farelensctl's failures: code, message, field")
struct CtlFailureTests {
    @Test("a request that timed out names the --timeout-ms budget in milliseconds, not a Duration")
    func timeout() {
        let failure = CtlFailure(BusError.timeout("SearchFlightsRequest", after: .nanoseconds(867_843)), address: "search", timeoutMs: 1)
        #expect(failure.code == "timeout" && failure.field == "--timeout-ms")
        #expect(failure.message == "search: no response within the --timeout-ms budget of 1 ms (raise it for slow work)")
        #expect(!failure.line.contains("seconds"))
    }

    @Test("a hello that timed out names the budget too")
    func helloTimeout() {
        let failure = CtlFailure(WireProtocolError.socketUnavailable("/tmp/s.sock", reason: "the hub sent no welcome within 0.001 seconds"), timeoutMs: 1)
        #expect(failure.code == "socket-unavailable" && failure.field == "--timeout-ms")
        #expect(failure.message.hasSuffix("(the --timeout-ms budget of 1 ms; raise it)"), "\(failure.message)")
    }

    @Test("a service's error keeps its code and field; the text line keeps the bus's [code]")
    func remote() {
        let failure = CtlFailure(BusError.remote(code: "invalid-field", message: "departure_date: 2027-02-30 is not a real calendar date"), address: "search")
        #expect(failure.code == "invalid-field" && failure.field == "departure_date" && failure.exitStatus == 1)
        #expect(failure.line == "search: remote [invalid-field]: departure_date: 2027-02-30 is not a real calendar date")
        #expect(CtlRun.jsonLine(failure) == #"{"error":{"code":"invalid-field","message":"search: departure_date: 2027-02-30 is not a real calendar date","field":"departure_date"}}"#)
    }

    @Test("a usage error exits 64 and names the option it starts with")
    func usage() {
        let failure = CtlFailure.usage("--limit must be 1–100 deals a page, not 0")
        #expect(failure.code == "usage" && failure.field == "--limit" && failure.exitStatus == 64)
    }
}
