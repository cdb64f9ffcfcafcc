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

    public static func path(in cache: CacheDirectory) -> String { cache.root + "/serve/address" }

    public func write(in cache: CacheDirectory) throws {
        try FileSystem.writeAtomically(Array("\(baseURL)\n\(pid)\n".utf8), to: Self.path(in: cache))
    }

    /// The running server's record; nil if none was recorded or its process is gone.
    public static func running(in cache: CacheDirectory) -> ServerRecord? {
        guard let bytes = try? FileSystem.readAll(path(in: cache)) else { return nil }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        guard lines.count == 2, let pid = Int32(lines[1]), kill(pid, 0) == 0 || errno == EPERM else { return nil }
        return ServerRecord(baseURL: lines[0], pid: pid)
    }

    /// Removes the record if it is still this one's.
    public func remove(in cache: CacheDirectory) {
        if Self.running(in: cache) == self { FileSystem.remove(Self.path(in: cache)) }
    }
}
