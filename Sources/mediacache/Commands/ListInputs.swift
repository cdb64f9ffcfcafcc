import ArgumentParser
import Foundation
import MediaCacheKit

/// What `prefetch` and `serve` take as input: URLs on the command line, list files (as
/// arguments or after `-i`), and `-` for standard input, in any mix.
struct ListInputs {
    enum Input: Equatable {
        case url(String)
        case list(String)
    }

    let inputs: [Input]

    /// `arguments` are classified (a URL or a list file); `inputFiles` (`-i`) are lists.
    /// A word that is neither is a usage error that says what was looked for.
    init(arguments: [String], inputFiles: [String]) throws {
        var inputs = try inputFiles.map { file in
            if file.isEmpty { throw ValidationError("-i needs a list file (or - for standard input)") }
            return Input.list(file)
        }
        for argument in arguments { inputs.append(try Self.classify(argument)) }
        if inputs.filter({ $0 == .list("-") }).count > 1 {
            throw ValidationError("standard input (-) can be read only once")
        }
        // A list file named twice is read once: its second reading would only be
        // duplicates of the first, each warned of as its own.
        var seen: Set<String> = []
        self.inputs = inputs.filter { input in
            guard case .list(let file) = input, file != "-" else { return true }
            return seen.insert(file).inserted
        }
    }

    var isEmpty: Bool { inputs.isEmpty }

    static func classify(_ word: String) throws -> Input {
        if word == "-" { return .list(word) }
        // Spaces pasted around a URL (a quoted copy from a page or a chat) are not part of it.
        let trimmed = word.trimmingCharacters(in: .whitespaces)
        if trimmed != word, looksLikeURL(trimmed), !FileManager.default.fileExists(atPath: word) {
            return try classify(trimmed)
        }
        if looksLikeURL(word) {
            try checkURL(word)
            return .url(word)
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: word, isDirectory: &isDirectory) {
            if isDirectory.boolValue { throw ValidationError("\(word) is a directory, not a list file or a URL") }
            return .list(word)
        }
        let hint = word.contains("/") && word.contains(".") && !word.hasPrefix(".") && !word.hasPrefix("/")
            ? " (for a URL, write \(likelyScheme(of: word))://\(word))" : ""
        throw ValidationError(
            "\(word) is neither a URL nor a list file: no file has that name, and a URL starts with http:// or https://\(hint)")
    }

    /// What a URL written without its scheme most likely meant: http for a local or
    /// numbered host or a port of its own (`127.0.0.1:8080/x`, as curl would take it)
    /// but 443 or 8443, https for a named one.
    static func likelyScheme(of word: String) -> String {
        let host = word.prefix { $0 != "/" }
        let parts = host.split(separator: ":")
        let name = parts.first.map(String.init) ?? ""
        if let port = parts.dropFirst().first { return port == "443" || port == "8443" ? "https" : "http" }
        let numbered = !name.isEmpty && name.allSatisfy { $0.isNumber || $0 == "." }
        return numbered || name == "localhost" ? "http" : "https"
    }

    /// `scheme://…`: the parser then says whether the scheme is one mediacache fetches.
    static func looksLikeURL(_ word: String) -> Bool {
        guard let separator = word.range(of: "://"), separator.lowerBound > word.startIndex else { return false }
        let scheme = word[..<separator.lowerBound]
        return scheme.first!.isASCII && scheme.first!.isLetter
            && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) }
    }

    /// A URL argument is one list line: it must parse as exactly one entry, and its
    /// problems are usage errors, found before anything is fetched.
    private static func checkURL(_ word: String) throws {
        if word.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw ValidationError("the URL argument \(escaped(word)) contains a control character (a line break?)")
        }
        let parsed = ListParser.parse(word, file: "")
        if let error = parsed.errors.first {
            let shown = URLCredentials.masked(word)
            // A list line's spaces part mirrors; in one argument a space is more likely
            // part of a name someone pasted.
            if word.contains(where: { $0 == " " || $0 == "\t" }) {
                let problem = error.message.replacingOccurrences(of: ListParser.spaceHint, with: "")
                throw ValidationError(
                    "\(shown): \(problem); a URL cannot hold a space: write it as %20 (spaces separate the mirrors of one file)")
            }
            throw ValidationError(error.message.contains(shown) ? error.message : "\(shown): \(error.message)")
        }
        guard parsed.entries.count == 1 else {
            throw ValidationError("\(URLCredentials.masked(word)) is not one URL")
        }
    }

    private static func escaped(_ word: String) -> String {
        String(word.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : Character($0) })
    }

    /// Every list is opened first (a missing one stops the command before anything is
    /// fetched); the URL arguments become one list, in their order, named "command line".
    /// Standard input and pipes are read as they arrive: stop their `stream`s to stop.
    func texts() throws(ListReader.Failure) -> [ListText] {
        var texts: [ListText] = []
        var urls: [String] = []
        for input in inputs {
            switch input {
            case .url(let url): urls.append(url)
            case .list(let path) where ListReader.isRegularFile(path):
                try ListReader.checkReadable(path)
                texts.append(ListText(readingFile: path, file: path))
            case .list(let path):
                let name = path == "-" ? "<stdin>" : path
                if let stream = try ListReader.openStream(path) {
                    texts.append(ListText(reading: stream, file: name))
                } else {
                    texts.append(ListParser.text(of: try ListReader.read(path), file: name))
                }
            }
        }
        if !urls.isEmpty { texts.append(ListText(text: urls.joined(separator: "\n"), file: "command line")) }
        return texts
    }
}

/// Opens the lists before anything is fetched; a failure says why (the command exits 2).
/// A regular file is read as its entries are asked for (`ListText(readingFile:)`);
/// standard input, a pipe or a terminal as it arrives (`ListStream`); another device is
/// read whole here, up to a limit.
enum ListReader {
    struct Failure: Error {
        let message: String
    }

    /// Lists read whole are text; a bigger "list" (or /dev/zero) is refused before it fills memory.
    static let maximumSize = 64 << 20

    static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return path != "-" && stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
    }

    /// `path` (`-`: standard input) as a stream, if it is a pipe, a socket or a terminal;
    /// nil for anything else.
    static func openStream(_ path: String) throws(Failure) -> ListStream? {
        if path == "-" { return ListStream.arrivesOverTime(0) ? ListStream(descriptor: 0, owned: false) : nil }
        let handle = try open(path)
        guard ListStream.arrivesOverTime(handle.fileDescriptor) else {
            try? handle.close()
            return nil
        }
        let descriptor = fcntl(handle.fileDescriptor, F_DUPFD_CLOEXEC, 0)
        try? handle.close()
        guard descriptor >= 0 else { throw Failure(message: "cannot read list \(path): \(String(cString: strerror(errno)))") }
        return ListStream(descriptor: descriptor, owned: true)
    }

    /// Fails as `read` would when `path` cannot be opened.
    static func checkReadable(_ path: String) throws(Failure) {
        try open(path).closeFile()
    }

    static func read(_ path: String) throws(Failure) -> [UInt8] {
        let handle = path == "-" ? FileHandle.standardInput : try open(path)
        var bytes: [UInt8] = []
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                bytes += chunk
                if bytes.count > maximumSize {
                    throw Failure(
                        message: "list \(path) is larger than \(maximumSize >> 20) MiB; split it into smaller lists")
                }
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(message: "cannot read list \(path): \(error.localizedDescription)")
        }
        return bytes
    }

    private static func open(_ path: String) throws(Failure) -> FileHandle {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        guard exists, !isDirectory.boolValue, let opened = FileHandle(forReadingAtPath: path) else {
            let reason = !exists ? "no such file" : isDirectory.boolValue ? "it is a directory" : "permission denied"
            throw Failure(message: "cannot read list \(path): \(reason)")
        }
        return opened
    }
}
