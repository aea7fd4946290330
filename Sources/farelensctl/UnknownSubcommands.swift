import ArgumentParser

/// A word where a group command (`users`, `alerts`, …) expects one of its
/// subcommands and none has that name: refused naming the word and the
/// names it may be, before ArgumentParser reads the line.
///
/// ArgumentParser reports the first thing the group itself does not
/// declare: `farelensctl users add --socket S` said "Unknown option
/// '--socket'" (the connection options belong to the subcommands), which
/// sends a newcomer looking at the wrong word.
enum UnknownSubcommands {
    /// The usage error for the first word of `arguments` (without the
    /// program name) that should name a subcommand of the group before it
    /// and does not, or nil. Global options (``GlobalOptions``) are passed
    /// over with their values; any other option, `--`, a group with a
    /// default subcommand, and `help` leave the line to ArgumentParser.
    static func refusal(in arguments: [String], root: any ParsableCommand.Type = FareLensCtl.self) -> String? {
        var command = root
        var path = [root._commandName]
        var index = arguments.startIndex
        while index < arguments.endIndex {
            if let words = GlobalOptions.words(at: index, in: arguments) {
                index += words
                continue
            }
            let word = arguments[index]
            if word.hasPrefix("-") { return nil }
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty, command.configuration.defaultSubcommand == nil, word != "help" else { return nil }
            guard let next = subcommands.first(where: { $0._commandName == word || $0.configuration.aliases.contains(word) }) else {
                let names = subcommands.map { $0._commandName }.joined(separator: ", ")
                return "unknown subcommand '\(word)' of '\(path.joined(separator: " "))'; it has: \(names)"
            }
            command = next
            path.append(word)
            index += 1
        }
        return nil
    }
}
