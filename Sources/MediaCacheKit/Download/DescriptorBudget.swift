import Foundation

/// How many files at once, and connections each, fit under the open-file limit.
///
/// Every connection is a socket, every file being downloaded holds its data file, its
/// journal and, while it checkpoints, a temporary state file; libcurl keeps idle
/// connections open for reuse. Past the limit, `socket` and `open` fail with EMFILE
/// and files fail for no fault of their own, so the run is sized to fit instead.
public struct DescriptorBudget: Sendable, Equatable {
    /// Descriptors one file holds besides its connections.
    static let perFile = 3
    /// Kept free for what comes and goes: SQLite readers, commits, directory syncs.
    static let headroom = 16
    /// Data files made ahead for the next jobs (`SpareDataFiles`), at most.
    static let maxSpareFiles = 8

    public let jobs: Int
    public let connectionsPerFile: Int
    /// Resources of a streaming title fetched at once: each holds a socket and its file.
    public let resourcesPerTitle: Int
    /// Data files to make ahead.
    public let spareFiles: Int
    /// Downloads that may commit behind at once (all bytes written, slot given back): each
    /// still holds its data file, maybe a relocated copy and a temporary state file.
    public let commitsBehind: Int
    /// Connections libcurl may keep open, idle ones included.
    public let maxConnections: Int
    /// What was asked for (`-j`, `-x`).
    public let askedJobs: Int
    public let askedConnectionsPerFile: Int

    /// Whether the run was made smaller than asked.
    public var isReduced: Bool { jobs < askedJobs || connectionsPerFile < askedConnectionsPerFile }

    /// Fits `jobs` × `connectionsPerFile` into `limit` descriptors, `inUse` of which are
    /// open already: connections per file shrink first while they outnumber the files,
    /// then both in turn, down to one file over one connection. A title fetches
    /// `resourcesPerTitle` at once where every job may, and fewer where descriptors are short.
    public init(
        limit: Int, inUse: Int, jobs: Int, connectionsPerFile: Int, resourcesPerTitle: Int = 16, maxConnections: Int
    ) {
        let free = limit - inUse - Self.headroom
        func cost(_ jobs: Int, _ connections: Int) -> Int {
            jobs * (Self.perFile + connections) + min(Self.maxSpareFiles, jobs)
        }
        var fittedJobs = jobs
        var fittedConnections = connectionsPerFile
        while cost(fittedJobs, fittedConnections) > free, fittedJobs > 1 || fittedConnections > 1 {
            if fittedConnections > 1 && (fittedConnections >= fittedJobs || fittedJobs == 1) {
                fittedConnections -= 1
            } else {
                fittedJobs -= 1
            }
        }
        self.jobs = fittedJobs
        self.connectionsPerFile = fittedConnections
        askedJobs = jobs
        askedConnectionsPerFile = connectionsPerFile
        let reduced = fittedJobs < jobs || fittedConnections < connectionsPerFile
        let left = free - fittedJobs * (Self.perFile + fittedConnections)
        spareFiles = max(0, min(Self.maxSpareFiles, fittedJobs, left))
        commitsBehind = max(0, left - spareFiles) / Self.perFile
        self.maxConnections = reduced ? fittedJobs * fittedConnections : maxConnections
        let perJob = max(0, free - min(Self.maxSpareFiles, fittedJobs)) / max(1, fittedJobs)
        self.resourcesPerTitle = max(1, min(resourcesPerTitle, (perJob - Self.perFile) / 2))
    }

    /// A warning when the run was made smaller than asked, else nil.
    public func warning(limit: Int) -> String? {
        guard isReduced else { return nil }
        return "the open-file limit (\(limit)) fits \(jobs) file\(jobs == 1 ? "" : "s") at once over "
            + "\(connectionsPerFile) connection\(connectionsPerFile == 1 ? "" : "s") each, not -j \(askedJobs) "
            + "-x \(askedConnectionsPerFile); raise it (ulimit -n) for more"
    }

    /// How many client connections a server beside this engine may hold (`serve`), each
    /// counted twice (its socket and the object file it may read), with room kept for
    /// every file and connection of the engine, so a flood of clients never takes the
    /// descriptors a download needs, nor drives `accept` into EMFILE.
    public func clientConnections(limit: Int) -> Int {
        let engine = jobs * (Self.perFile + connectionsPerFile) + spareFiles + commitsBehindReserve + 4 * Self.headroom
        let free = limit == Int.max ? 8192 : limit - Self.descriptorsInUse() - engine
        return min(4096, max(8, free / 2))
    }

    /// Commits behind hold a few descriptors each; at most this many are kept for them.
    private var commitsBehindReserve: Int { Self.perFile * min(commitsBehind, 16) }

    /// Descriptors this process has open now.
    static func descriptorsInUse() -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.count).map { $0 - 1 } ?? 16
    }
}
