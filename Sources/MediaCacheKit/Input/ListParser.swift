/// Parses the list format: a subset of aria2's input file.
///
/// A line that starts with a URI begins an entry (mirrors separated by tabs or spaces);
/// indented `key=value` lines are options of the entry above. `#` starts a comment at
/// the start of a line or after whitespace. CRLF endings and a UTF-8 BOM are accepted.
/// A bad line is reported and its entry dropped; the other entries stand.
public enum ListParser {
    /// aria2 options that are meaningful there but not here: accepted with a warning.
    static let knownForeignOptions: Set<String> = [
        "split", "max-connection-per-server", "min-split-size",
        "continue", "pause", "gid",
        "select-file", "index-out", "check-integrity",
    ]

    /// What a URL line's second word that is no URL most likely is: the rest of a name.
    public static let spaceHint =
        " (the words of a URL line are mirrors of one file, split at spaces and tabs; write a space inside a URL as %20)"

    /// Longer lines are refused unread: no URL or option is this long, and parsing
    /// megabytes of one line would only produce a long error.
    static let maxLineLength = 4 * URLParts.maxLength

    /// The text of a list held in memory (standard input, a pipe), without a byte order
    /// mark, decoded line by line as `ListLine` decodes a file's: a comment may hold any
    /// bytes, a line that is not UTF-8 keeps only its indentation and is reported.
    public static func text(of bytes: [UInt8], file: String) -> ListText {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        if let text = String(validating: body, as: UTF8.self) { return ListText(text: text, file: file) }
        var lines: [Substring] = []
        var undecodable: Set<Int> = []
        for (index, line) in body.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let decoded = ListLine(decoding: line)
            if !decoded.isUTF8 { undecodable.insert(index + 1) }
            lines.append(decoded.text)
        }
        return ListText(text: lines.joined(separator: "\n"), file: file, undecodableLines: undecodable)
    }

    /// Where a line's comment starts: a `#` at its start or after a space or tab (as
    /// `Builder.stripComment` finds it in text), else its end.
    static func commentStart(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8>.Index {
        var previous = UInt8(ascii: " ")
        for index in line.indices {
            if line[index] == UInt8(ascii: "#") && (previous == UInt8(ascii: " ") || previous == UInt8(ascii: "\t")) {
                return index
            }
            previous = line[index]
        }
        return line.endIndex
    }

    /// How many entries `texts` hold, counted without parsing: the lines that start one
    /// (not indented, not a comment, not blank). Bad lines and repeated keys make it an
    /// upper bound. A list file is read for it in chunks (one that cannot be read counts 0);
    /// a stream, not known before its end, counts 0.
    public static func entryLineCount(_ texts: [ListText]) -> Int {
        var count = 0
        for text in texts {
            var counter = EntryLineCounter()
            switch text.content {
            case .text(let text, _): counter.count(text.utf8)
            case .path(let path, _):
                guard let handle = FileHandle(forReadingAtPath: path) else { continue }
                while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty { counter.count(chunk) }
                try? handle.close()
            case .stream:
                // Not known before it ends.
                continue
            }
            count += counter.lines
        }
        return count
    }

    private struct EntryLineCounter {
        var lines = 0
        var atLineStart = true

        mutating func count(_ bytes: some Sequence<UInt8>) {
            for byte in bytes {
                if atLineStart && !(byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "#")
                    || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n"))
                {
                    lines += 1
                }
                atLineStart = byte == UInt8(ascii: "\n")
            }
        }
    }

    /// Every entry and problem of one list at once (`ListEntries` parses as it goes).
    public static func parse(_ bytes: [UInt8], file: String) -> ParsedList {
        let entries = ListEntries([text(of: bytes, file: file)])
        var parsed = ParsedList(entries: [], diagnostics: [])
        while let entry = entries.next(diagnose: { parsed.diagnostics.append($0) }) {
            parsed.entries.append(entry)
        }
        return parsed
    }

    public static func parse(_ text: String, file: String) -> ParsedList {
        parse(Array(text.utf8), file: file)
    }

    /// Turns lines into entries: `consume` returns the entry a new URL line completes,
    /// `finish` the last one. Problems collect in `diagnostics`.
    struct Builder {
        let file: String
        var diagnostics: [ListDiagnostic] = []
        /// The entry being built; nil after a bad URI line so its options are skipped.
        var current: ListEntry?
        /// True while the options of a rejected entry are being skipped.
        var skippingOptions = false
        var currentLine = 0
        /// The line of the last entry taken before its next line came (a stream's writer
        /// fell silent after it): an option line now is too late for it.
        var takenEarly: Int?
        init(file: String) {
            self.file = file
        }

        mutating func consume(_ read: ListLine, at number: Int) -> (entry: ListEntry, line: Int)? {
            let line = read.text
            let indented = line.first == " " || line.first == "\t"
            // A line that cannot be read takes its entry with it: a URL line its options,
            // an option line the entry it belongs to.
            let unreadable =
                !read.isUTF8
                ? "line is not UTF-8 text (save the list as UTF-8)"
                : read.isOverlong
                    ? "line is \(read.length) bytes long; no URL or option may be longer than \(URLParts.maxLength) bytes"
                    : nil
            if let unreadable {
                if indented && skippingOptions { return nil }
                let completed = indented ? nil : finish()
                rejectEntry(number, unreadable)
                return completed
            }
            let content = stripComment(line).trimmingCharacters(in: .whitespaces)
            if content.isEmpty { return nil }
            if indented {
                consumeOption(content, at: number)
                return nil
            }
            let completed = finish()
            consumeURIs(content, at: number)
            return completed
        }

        /// The entry still being built, now complete.
        mutating func finish() -> (entry: ListEntry, line: Int)? {
            guard let entry = current else { return nil }
            current = nil
            return (entry, currentLine)
        }

        mutating func consumeURIs(_ content: String, at number: Int) {
            let uris = content.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            for (index, uri) in uris.enumerated() {
                if let problem = URLParts.problem(with: uri) {
                    // Not a URL after a first one that is: most likely the rest of a name
                    // with a space in it, not a mirror.
                    let hint = index > 0 && !uri.contains("://") ? ListParser.spaceHint : ""
                    error(number, "\(problem): \(uri)\(hint)")
                    current = nil
                    skippingOptions = true
                    return
                }
            }
            current = ListEntry(urls: uris.map { URLParts.removingFragment($0) ?? $0 }, origin: "\(file):\(number)")
            currentLine = number
            takenEarly = nil
            skippingOptions = false
        }

        mutating func consumeOption(_ content: String, at number: Int) {
            if skippingOptions { return }
            guard current != nil else {
                if let taken = takenEarly {
                    error(
                        number,
                        "option '\(HeaderRedaction.preview(content))' came more than a second after its entry on line "
                            + "\(taken), which had started: write an entry's lines together")
                } else {
                    error(number, "option '\(HeaderRedaction.preview(content))' has no URL line above it")
                }
                return
            }
            guard let eq = content.firstIndex(of: "=") else {
                if URLParts.problem(with: content) == nil {
                    error(
                        number,
                        "an indented line is an option of the entry above, and this one is a URL: "
                            + "\(URLCredentials.masked(content)); to fetch it, write it at the start of its line")
                } else {
                    error(number, "expected key=value, got '\(HeaderRedaction.preview(String(content)))'")
                }
                return
            }
            let key = content[..<eq].trimmingCharacters(in: .whitespaces).lowercased()
            let value = content[content.index(after: eq)...].trimmingCharacters(in: .whitespaces)
            switch key {
            case "out":
                // A file placed under another name than the one asked for is not what was
                // asked: the entry is skipped, as for any other bad option.
                guard !value.isEmpty else { return rejectEntry(number, "out= needs a name") }
                guard !ControlCharacters.occur(in: value, allowingTab: true) else {
                    return rejectEntry(number, "out= name contains control characters")
                }
                // Folders in it are made inside the entry's folder, as aria2 does; never above it.
                if value.split(separator: "/").contains("..") {
                    return rejectEntry(
                        number, "out= \(value) has a '..' (it may leave its folder): name a file inside it, e.g. out=Season 1/E01.mp4")
                }
                if value.hasSuffix("/") || value.split(separator: "/").last.map({ $0 == "." }) == true {
                    return rejectEntry(number, "out= \(value) names a folder: end it with the file's name")
                }
                current!.outName = value
            case "dir":
                guard !value.isEmpty else { return rejectEntry(number, "dir= needs a folder") }
                guard !ControlCharacters.occur(in: value, allowingTab: true) else {
                    return rejectEntry(number, "dir= folder contains control characters")
                }
                current!.directory = value
            case "header":
                guard let colon = value.firstIndex(of: ":"),
                    !value[..<colon].isEmpty,
                    value[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "-_".contains($0) })
                else { return rejectEntry(number, "header must look like 'Name: value', got '\(HeaderRedaction.preview(value))'") }
                // CR, LF or NUL inside a header would end it early or start another one.
                guard !ControlCharacters.occur(in: value, allowingTab: true) else {
                    return rejectEntry(number, "header contains control characters")
                }
                if let problem = HeaderValueCheck.reservedProblem(value, given: "header=") { return rejectEntry(number, problem) }
                current!.headers.append(value)
            case "checksum":
                do {
                    current!.checksum = try ExpectedChecksum(parsing: value)
                } catch {
                    rejectEntry(number, error.description)
                }
            case "max-download-limit":
                guard let limit = ByteCount.parse(value) else {
                    return rejectEntry(
                        number,
                        "max-download-limit must be a size per second, like 500K or 2M (0: unlimited), got '\(value)'")
                }
                current!.maxDownloadLimit = limit
            case "cache-key":
                guard !value.isEmpty else { return rejectEntry(number, "cache-key= needs a value") }
                current!.cacheKey = value
            case "user-agent", "referer", "all-proxy":
                consumeClientOption(key, value, at: number)
            case "max-height", "max-bandwidth", "all-variants", "audio-lang":
                consumeRenditionOption(key, value, at: number)
            default:
                let note = ListParser.knownForeignOptions.contains(key) ? " (an aria2 option mediacache does not use)" : ""
                warning(number, "unknown option '\(key)' ignored\(note)")
            }
        }

        /// A bad option makes the whole entry unsafe to fetch (a wrong checksum or a
        /// missing header would produce a wrong or unauthorised download).
        mutating func rejectEntry(_ number: Int, _ message: String) {
            error(number, message + "; entry skipped")
            current = nil
            skippingOptions = true
        }

        func stripComment(_ line: Substring) -> Substring {
            var previous: Character = " "
            for index in line.indices {
                if line[index] == "#" && (previous == " " || previous == "\t") {
                    return line[..<index]
                }
                previous = line[index]
            }
            return line
        }

        /// Messages quote the list's text, which may be binary or megabytes long: shown
        /// without control characters and cut short.
        mutating func error(_ line: Int, _ message: String) {
            diagnostics.append(ListDiagnostic(severity: .error, file: file, line: line, message: Printable.name(message)))
        }

        mutating func warning(_ line: Int, _ message: String) {
            diagnostics.append(
                ListDiagnostic(severity: .warning, file: file, line: line, message: Printable.name(message)))
        }
    }
}

import Foundation
