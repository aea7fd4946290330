import FareLensTesting
import Foundation
import Testing

@Suite("Gateway: schemathesis against the served document")
struct GatewaySchemathesisTests {
    /// Runs schemathesis (PyPI, in the venv ops/install-deps.sh keeps; `PythonTools`) against a
    /// running gateway, authenticated, bounded: 50 examples per operation,
    /// a fixed seed, one worker, and a hard time limit on the process.
    @Test("no 5xx, every response conforms to the document, invalid input is refused: schemathesis finds nothing")
    func schemathesis() async throws {
        // Limits raised so thousands of generated requests measure the API, not the buckets.
        let limits = ["gateway.userBurst": "1000000", "gateway.userPerSecond": "1000000", "gateway.signInBurst": "1000000"]
        // The App Store (a test root) and the postback configured, so their checks of what they are sent are what is explored, not a 503.
        let payments = try GatewayPaymentsTests.appStoreSettings(try AppStoreTestChain()).merging(["gateway.affiliate.postbackSecret": GatewayPaymentsTests.secret]) { _, new in new }
        try await GatewayHarness.with(.oneProcess, settings: limits.merging(payments) { _, new in new }) { _, api in
            let token = try #require(try await api.signUp("schema@example.com").string("access_token"))
            let arguments = [
                "-m", "schemathesis.cli", "run", "http://127.0.0.1:\(api.port)/openapi.yaml", "-H", "Authorization: Bearer \(token)",
                // Schema-valid input a service still refuses (an unknown airport, a date in the past) is
                // correct behaviour the document cannot express, so positive_data_acceptance is left out.
                "--checks", "all", "--exclude-checks", "positive_data_acceptance",
                "--max-examples", "50", "--phases", "examples,coverage,fuzzing", "--workers", "1", "--seed", "1", "--no-color",
                // Deleting the account would turn every later request into 401.
                "--exclude-operation-id", "deleteMe",
            ]
            // Its caches and reports go to a directory of the test's own, never into the repository.
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("farelens-schemathesis-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            let (status, text) = try await PythonTools.run(arguments, in: scratch)
            #expect(status == 0, "\(text.suffix(6000))")
            #expect(text.contains(" passed"), "\(text.suffix(2000))")
        }
    }
}
