import Foundation
import Synchronization

/// The entries of an interrupted run that never started, kept so that `resume` finishes
/// the run and not only the downloads that had begun (those are under `partial/`).
///
/// One file per interrupted run under `runs/`, a JSON line per request, mode 0600:
/// requests carry the headers they are sent with.
public enum RunQueue {
    static let prefix = "queue-"

    /// Collects requests as a run stops (on the transfer thread), then saves them at once.
    public final class Writer: Sendable {
        private let cache: CacheDirectory
        private let lines = Mutex<(bytes: [UInt8], count: Int)>(([], 0))

        public init(cache: CacheDirectory) {
            self.cache = cache
        }

        public func append(_ request: JobRequest) {
            guard let line = try? Self.encoder.encode(request) else { return }
            lines.withLock {
                $0.bytes += line
                $0.bytes.append(UInt8(ascii: "\n"))
                $0.count += 1
            }
        }

        public var count: Int { lines.withLock { $0.count } }

        /// Writes what was appended, durably, as a new file; nothing when nothing was.
        public func save() throws(SystemError) {
            let bytes = lines.withLock { $0.bytes }
            guard !bytes.isEmpty else { return }
            try FileSystem.makeDirectory(cache.runsDirectory, replacingLink: true)
            let stamp = Int64(Date().timeIntervalSince1970 * 1000)
            let name = "\(prefix)\(stamp)-\(getpid()).jsonl"
            try FileSystem.writeAtomically(bytes, to: cache.runsDirectory + "/" + name)
        }

        private static let encoder: JSONEncoder = {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return encoder
        }()
    }

    public struct Saved: Sendable {
        /// In the order the runs were interrupted, each file's in its order.
        public var requests: [JobRequest] = []
        /// The files they came from, to remove once their requests are done or saved again.
        public var files: [String] = []
        /// Lines that could not be read, named `file:line`.
        public var problems: [String] = []

        public init() {}
    }

    /// Every saved request; an unreadable line is a problem, the others stand.
    public static func load(in cache: CacheDirectory) -> Saved {
        var saved = Saved()
        let names = FileSystem.contentsOfDirectory(cache.runsDirectory)
            .filter(isQueueFile)
            .sorted { stamp(of: $0) < stamp(of: $1) }
        let decoder = JSONDecoder()
        for name in names {
            let path = cache.runsDirectory + "/" + name
            guard FileSystem.isRegularFile(path) else { continue }
            let bytes: [UInt8]
            do {
                bytes = try FileSystem.readAll(path)
            } catch {
                saved.problems.append("\(error)")
                continue
            }
            saved.files.append(path)
            for (index, line) in bytes.split(separator: UInt8(ascii: "\n")).enumerated() {
                if let request = try? decoder.decode(JobRequest.self, from: Data(line)) {
                    saved.requests.append(request)
                } else {
                    saved.problems.append("\(path):\(index + 1): not a saved entry; skipped")
                }
            }
        }
        return saved
    }

    /// Drops the saved requests `matches` picks (`rm`); returns how many.
    public static func forget(in cache: CacheDirectory, where matches: (JobRequest) -> Bool) throws(SystemError) -> Int {
        var dropped = 0
        let decoder = JSONDecoder()
        for name in FileSystem.contentsOfDirectory(cache.runsDirectory) where isQueueFile(name) {
            let path = cache.runsDirectory + "/" + name
            guard FileSystem.isRegularFile(path) else { continue }
            let lines = try FileSystem.readAll(path).split(separator: UInt8(ascii: "\n"))
            let kept = lines.filter { line in
                guard let request = try? decoder.decode(JobRequest.self, from: Data(line)) else { return true }
                return !matches(request)
            }
            guard kept.count < lines.count else { continue }
            dropped += lines.count - kept.count
            if kept.isEmpty {
                FileSystem.remove(path)
            } else {
                try FileSystem.writeAtomically(Array(kept.joined(separator: [UInt8(ascii: "\n")])) + [UInt8(ascii: "\n")], to: path)
            }
        }
        return dropped
    }

    /// Whether no interrupted run left entries (nothing under `runs/`).
    public static func isEmpty(in cache: CacheDirectory) -> Bool {
        !FileSystem.contentsOfDirectory(cache.runsDirectory).contains(where: isQueueFile)
    }

    /// Forgets saved runs whose requests are done or saved again.
    public static func remove(_ files: [String]) {
        for file in files { FileSystem.remove(file) }
    }

    /// `queue-<ms>-<pid>.jsonl`; not the temporary file of a save that was cut short.
    private static func isQueueFile(_ name: String) -> Bool { name.hasPrefix(prefix) && name.hasSuffix(".jsonl") }

    /// The milliseconds in a file's name, so runs sort by time and not by digit count.
    private static func stamp(of name: String) -> Int64 {
        Int64(name.dropFirst(prefix.count).prefix { $0.isNumber }) ?? 0
    }
}
