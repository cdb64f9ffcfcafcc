import Foundation

/// Where a running `serve` listens, recorded in the cache directory so `mediacache url`
/// finds it: the base URL and the server's pid, removed when it stops.
public struct ServerRecord: Sendable, Equatable {
    public var baseURL: String
    public var pid: Int32

    public init(baseURL: String, pid: Int32) {
        self.baseURL = baseURL
        self.pid = pid
    }

    /// One record per server: two `serve`s on one cache (a loopback one and a LAN one)
    /// never remove each other's.
    public static func directory(in cache: CacheDirectory) -> String { cache.root + "/serve" }
    public static func path(in cache: CacheDirectory, pid: Int32) -> String { directory(in: cache) + "/address-\(pid)" }
    /// Where versions before per-server records wrote the one record.
    static func sharedPath(in cache: CacheDirectory) -> String { directory(in: cache) + "/address" }

    public func write(in cache: CacheDirectory) throws {
        try FileSystem.makeDirectory(Self.directory(in: cache), durable: false)
        try FileSystem.writeAtomically(Array("\(baseURL)\n\(pid)\n".utf8), to: Self.path(in: cache, pid: pid))
    }

    /// The newest running server's record; nil if none is recorded or their processes
    /// are gone (their records are then removed).
    public static func running(in cache: CacheDirectory) -> ServerRecord? {
        let folder = directory(in: cache)
        let names = FileSystem.contentsOfDirectory(folder).filter { $0 == "address" || $0.hasPrefix("address-") }
        var newest: (record: ServerRecord, written: Date)?
        for name in names {
            let path = folder + "/" + name
            guard let record = read(path) else { continue }
            guard record.isRunning else {
                // A server killed with -9 left it (or, as `address`, an older version's).
                FileSystem.remove(path)
                continue
            }
            let written = FileSystem.lastModification(of: path) ?? .distantPast
            if newest.map({ written > $0.written }) ?? true { newest = (record, written) }
        }
        return newest?.record
    }

    private static func read(_ path: String) -> ServerRecord? {
        guard let bytes = try? FileSystem.readAll(path) else { return nil }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        guard lines.count == 2, let pid = Int32(lines[1]) else { return nil }
        return ServerRecord(baseURL: lines[0], pid: pid)
    }

    private var isRunning: Bool { kill(pid, 0) == 0 || errno == EPERM }

    /// Removes this server's record.
    public func remove(in cache: CacheDirectory) {
        FileSystem.remove(Self.path(in: cache, pid: pid))
        if Self.read(Self.sharedPath(in: cache)) == self { FileSystem.remove(Self.sharedPath(in: cache)) }
    }
}
