import Foundation

/// Runs `program` with `arguments` to its end (the reference programs bound
/// their own waits) and returns what it printed on stdout, trimmed.
///
/// - Throws: ``ProgramFailed`` when it exits with a status other than 0.
public func programOutput(_ program: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw ProgramFailed(description: "\(program) \(arguments.first ?? "") exited with \(process.terminationStatus)") }
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// A program run by a benchmark exited with an error.
public struct ProgramFailed: Error, CustomStringConvertible {
    public let description: String
}
