/// Global options anywhere on the line: `farelensctl --socket S status` means
/// `farelensctl status --socket S`.
///
/// ArgumentParser reads an option only in the command that declares it, and
/// every leaf command declares the connection options (``ConnectionOptions``).
/// So the options written before the subcommand are moved to the end of the
/// line, where the leaf command reads them. Anything else before the
/// subcommand (`--help`, `--version`, `--generate-completion-script`) is left
/// where it is, for the root command.
enum GlobalOptions {
    /// Options that take a value (`--socket S` or `--socket=S`).
    static let valued: Set<String> = ["--socket", "--timeout-ms"]
    /// Flags.
    static let flags: Set<String> = ["--json"]

    /// `arguments` (without the program name) with the global options that
    /// precede the first subcommand moved to the end, in their order.
    static func hoisted(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex, let words = words(at: index, in: arguments) {
            leading.append(contentsOf: arguments[index..<index + words])
            index += words
        }
        // Only when a subcommand follows: `--json --version` is the root's business.
        guard !leading.isEmpty, index < arguments.endIndex, !arguments[index].hasPrefix("-") else { return arguments }
        return Array(arguments[index...]) + leading
    }

    /// How many words the global option at `index` takes (`--json`,
    /// `--socket=S`: 1; `--socket S`: 2), or nil when the word there is not
    /// a global option (or lacks its value).
    static func words(at index: Int, in arguments: [String]) -> Int? {
        let token = arguments[index]
        let name = token.split(separator: "=", maxSplits: 1).first.map(String.init) ?? token
        if flags.contains(token) || (valued.contains(name) && token.contains("=")) { return 1 }
        if valued.contains(token), index + 1 < arguments.endIndex { return 2 }
        return nil
    }
}
