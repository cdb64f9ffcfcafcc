import Foundation

/// How a prefetch run behaves; the command line fills it from its flags.
public struct PrefetchOptions: Sendable {
    /// Files downloaded at once (`-j`).
    public var jobs = 4
    /// Connections per file (`-x`).
    public var connectionsPerFile = 8
    /// Resources of a streaming title fetched at once (`-x` when given). More than a
    /// file's connections: a segment is a small file whose round trip costs more than
    /// its bytes, so requests in flight, not bandwidth, decide how fast a title comes.
    /// The per-host cap still holds.
    public var resourcesPerTitle = 16
    /// No fragment is planned smaller than this (`--min-fragment`). Files up to twice
    /// this size take one request: splitting them costs more round trips than it saves.
    public var minFragment: Int64 = 4 << 20
    /// The most bytes taken of a response without a length (`--max-stream-size`): an
    /// endless stream would otherwise fill the disk.
    public var maxStreamSize: Int64 = 64 << 30

    /// Why `what` (a URL, a title's segment) was cut at `limit` (`maxStreamSize`): one
    /// wording for a file and a title's part.
    static func beyondStreamLimit(_ what: String, limit: Int64) -> String {
        "\(what) sent more than \(ByteCount.format(limit)) without saying how long it is (a live stream?); "
            + "nothing of it was kept. Raise --max-stream-size to take more"
    }
    /// `-H` headers, for every entry's own host.
    public var headers: [String] = []
    /// Failures in a row, without progress in between, before a file is given up (`--retries`).
    public var retries = 5
    /// Seconds without a byte before a connection is considered stalled (`--timeout`).
    public var stallTimeout = 30
    /// A connection slower than this (bytes per second) for `stallTimeout` seconds is
    /// abandoned and its range retried (`--lowest-speed-limit`); 0: only a stall counts.
    public var lowestSpeedLimit: Int64 = 0
    /// Bytes per second for the whole run, all files and connections together
    /// (`--limit-rate`); 0: unlimited.
    public var limitRate: Int64 = 0
    /// Bytes per second for each file, unless its entry says otherwise
    /// (`--max-download-limit`, the entry's `max-download-limit=`); 0: unlimited.
    public var maxDownloadLimit: Int64 = 0
    /// Check TLS certificates (`--insecure` clears it).
    public var verifyTLS = true
    /// Relocate moov before mdat on commit (`--no-faststart` clears it).
    public var faststart = true
    /// Which renditions of a streaming title to fetch (`--max-height`, `--all-variants`,
    /// ...), unless its entry says otherwise.
    public var renditions = RenditionSelectionOptions()
    /// libcurl's per-host connection cap, shared by all files (`--max-connections-per-host`;
    /// through a proxy it counts connections to the proxy).
    public var maxConnectionsPerHost = 16
    /// A running job checkpoints at least this often (seconds) ...
    public var checkpointInterval = 0.5
    /// ... but the first one (which starts the progress journal) after this long.
    public var firstCheckpointInterval = 0.2
    /// ... and sooner, once 1 % of the file (at least this many bytes) arrived since the
    /// last one, but not more often than `minCheckpointInterval`. So `kill -9` costs at
    /// most about 1 % of a file or a tenth of a second of transfer.
    public var checkpointBytes: Int64 = 1 << 20
    public var minCheckpointInterval = 0.1
    /// How often a file may restart because its origin changed before it fails.
    public var maxOriginChanges = 5
    /// First retry delay (seconds); doubles per failure, with jitter, up to `maxRetryDelay`.
    public var retryBaseDelay = 0.5
    public var maxRetryDelay = 30.0
    /// A `Retry-After` longer than this is cut down to it.
    public var maxRetryAfter = 300.0
    /// `--user-agent`; a list entry's `user-agent=` wins.
    public var userAgent = "mediacache/\(MediaCacheVersion.string)"
    /// Proxy, cookies, netrc and Referer for every request (`--proxy`, `--no-proxy`,
    /// `--load-cookies`, `--netrc`, `--netrc-file`, `--referer`); a list entry's
    /// `all-proxy=` and `referer=` win.
    public var client = ClientSettings()
    /// Bytes of downloads written in full but not committed yet (hashing, relocation,
    /// sync, rename and index run behind) that may pile up before a download that ends
    /// its writes keeps its slot until its commit is done, as on a disk too slow to keep
    /// up. An eighth of RAM, between 64 MiB and 512 MiB: enough for the network never to
    /// wait on a group's sync, little enough that dirty pages never crowd out the rest.
    var uncommittedBytesLimit: Int64 = PrefetchOptions.defaultUncommittedBytesLimit
    /// Tests: every commit waits this long first, as on a slow disk.
    var commitDelayForTesting = 0.0

    static let defaultUncommittedBytesLimit: Int64 = {
        let eighth = Int64(clamping: ProcessInfo.processInfo.physicalMemory / 8)
        return min(512 << 20, max(64 << 20, eighth))
    }()

    public init() {}
}
