import ArgumentParser
import Foundation

/// A first word that names no command, said with what was probably meant: a URL or a list
/// typed as to aria2c or curl (`mediacache URL`), or a command name mistyped.
enum CommandGuess {
    static func problem(first word: String, commands: [ParsableCommand.Type]) -> String? {
        let names = commands.map { $0._commandName } + ["help"]
        guard !word.hasPrefix("-"), !names.contains(word) else { return nil }
        if ListInputs.looksLikeURL(word) || FileManager.default.fileExists(atPath: word) {
            return "'\(word)' is not a command; to download it: mediacache prefetch \(word)"
        }
        let scored = names.map { (name: $0, edits: distance($0, word)) }.filter { $0.edits <= 2 }
        guard let best = scored.min(by: { $0.edits < $1.edits })?.name else { return nil }
        return "'\(word)' is not a command; did you mean '\(best)'? (mediacache --help lists them)"
    }

    /// Edits (insert, delete, replace) from `a` to `b`.
    private static func distance(_ a: String, _ b: String) -> Int {
        let first = Array(a)
        let second = Array(b)
        var previous = Array(0...second.count)
        for i in 0..<first.count {
            var current = [i + 1]
            for j in 0..<second.count {
                let replace = previous[j] + (first[i] == second[j] ? 0 : 1)
                current.append(Swift.min(previous[j + 1] + 1, current[j] + 1, replace))
            }
            previous = current
        }
        return previous[second.count]
    }
}
