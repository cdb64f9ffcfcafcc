import Foundation

/// The NDJSON a `--json` run printed on stdout, parsed line by line.
struct EventStream {
    /// Every line, parsed; nil where a line is not a JSON object (which must never happen).
    let lines: [[String: Any]?]
    let text: String

    init(_ stdout: String) {
        text = stdout
        lines = stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast(stdout.hasSuffix("\n") ? 1 : 0)
            .map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// True when every line is a JSON object with an "event" field.
    var isValid: Bool { lines.allSatisfy { $0?["event"] is String } }

    var events: [[String: Any]] { lines.compactMap { $0 } }

    func named(_ name: String) -> [[String: Any]] { events.filter { $0["event"] as? String == name } }

    var last: [String: Any]? { events.last }
}
