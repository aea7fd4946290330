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
}
