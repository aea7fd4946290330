/// Words that look like negative numbers (`-1h`, `-5`), refused before
/// ArgumentParser reads the line.
///
/// ArgumentParser takes `-1h` for the short flags `-1` and `-h`, and `-h`
/// is help: `farelensctl clock advance -1h` printed the command's help and
/// exited 0, as if it had worked. No farelensctl value may be negative (a
/// duration moves a clock forward only; counts, limits and prices are
/// positive), so such a word is a usage error naming it. Two kinds of word
/// are left to the option they belong to, which refuses them with its own
/// bounds: `--option=-5`, one word starting with `--`, and the word after
/// an option that reads an amount whatever it starts with
/// (``amountOptions``: `--threshold -5GBP` says what an amount must be).
enum NegativeArguments {
    /// The usage error for the first word of `arguments` (without the
    /// program name) that is `-` and a digit, or nil.
    static func refusal(in arguments: [String]) -> String? {
        let refused = arguments.indices.first { index in
            isNegative(arguments[index]) && (index == arguments.startIndex || !amountOptions.contains(arguments[index - 1]))
        }
        guard let refused else { return nil }
        let word = arguments[refused]
        let option = refused > arguments.startIndex && arguments[refused - 1].hasPrefix("--") ? arguments[refused - 1] : nil
        if let option { return "\(option) must not be negative, not '\(word)'" }
        let why = arguments.first == "clock" ? " (a clock only moves forward)" : ""
        return "invalid-value: '\(word)' is negative; farelensctl takes no negative values\(why)"
    }

    /// The options declared with `parsing: .unconditional`, which take an
    /// amount starting with `-` as their value and refuse it themselves.
    static let amountOptions: Set<String> = ["--threshold", "--under", "--max-price"]

    private static func isNegative(_ word: String) -> Bool {
        let utf8 = word.utf8
        guard utf8.count >= 2, utf8.first == UInt8(ascii: "-") else { return false }
        let second = utf8[utf8.index(after: utf8.startIndex)]
        return second >= UInt8(ascii: "0") && second <= UInt8(ascii: "9")
    }
}
