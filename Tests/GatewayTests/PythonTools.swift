import FareLensTesting
import Foundation

/// The Python that runs the gateway tests' PyPI tools (openapi-spec-validator,
/// schemathesis), which ops/install-deps.sh keeps in a virtual environment
/// under the ignored build folder.
enum PythonTools {
    /// `FARELENS_PYTHON` when set (ops/test.sh exports the venv's python), else
    /// the venv's python when it exists (a `swift test` run after the set-up),
    /// else `python3` on PATH.
    static var python: String {
        if let configured = ProcessInfo.processInfo.environment["FARELENS_PYTHON"], !configured.isEmpty,
            FileManager.default.isExecutableFile(atPath: configured)
        {
            return configured
        }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let venv = repository.appendingPathComponent(".build/python-venv/bin/python").path
        return FileManager.default.isExecutableFile(atPath: venv) ? venv : "python3"
    }

    /// Runs `python arguments…` in `directory` and returns its exit status
    /// and output (stdout and stderr together), killed after `limit`.
    static func run(_ arguments: [String], in directory: URL? = nil, limit: Duration = .seconds(300)) async throws -> (status: Int32, output: String) {
        let finished = try await FinishedProcess.run("/usr/bin/env", [python] + arguments, directory: directory, mergingOutput: true, limit: limit)
        return (finished.status, finished.stdout)
    }
}
