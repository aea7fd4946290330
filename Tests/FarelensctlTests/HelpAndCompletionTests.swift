import ArgumentParser
import Testing
@testable import farelensctl

/// Every command explains itself with an example, and shells can complete them all.
@Suite("Help and completion")
struct HelpAndCompletionTests {
    /// Every leaf command, by its full name ("alerts history").
    static func leaves(_ command: any ParsableCommand.Type, path: [String] = []) -> [(String, any ParsableCommand.Type)] {
        let name = command.configuration.commandName ?? command._commandName
        let here = path + [name]
        let children = command.configuration.subcommands
        if children.isEmpty { return [(here.dropFirst().joined(separator: " "), command)] }
        return children.flatMap { leaves($0, path: here) }
    }

    @Test("every command's --help has an example that starts with its own name")
    func examples() {
        let all = Self.leaves(FareLensCtl.self)
        #expect(all.count >= 30, "the whole CLI: \(all.map(\.0))")
        for (name, command) in all {
            let help = command.helpMessage(columns: 120)
            // After the word "Example" (so the usage line does not count).
            let example = help.range(of: "Example").map { help[$0.upperBound...] } ?? ""
            #expect(example.contains("farelensctl \(name)"), "\(name) has no example")
        }
    }

    @Test("completion scripts for bash, zsh and fish name every top-level command", arguments: [CompletionShell.bash, .zsh, .fish])
    func completion(shell: CompletionShell) {
        let script = FareLensCtl.completionScript(for: shell)
        for command in FareLensCtl.configuration.subcommands {
            let name = command.configuration.commandName ?? command._commandName
            #expect(script.contains(name), "\(shell) completion lacks \(name)")
        }
    }
}
