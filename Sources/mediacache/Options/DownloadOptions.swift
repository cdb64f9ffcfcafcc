import Foundation
import ArgumentParser
import MediaCacheKit

/// The flags that shape a download run, shared by `prefetch`, `resume` and `serve`.
///
/// The network, tier and title groups sit beside it in each command, not inside it:
/// argument-parser checks a debug build's option groups again at every level of nesting,
/// so each level multiplies the time a debug binary takes to start (seconds at four).
struct DownloadOptions: ParsableArguments {
    @Option(name: [.short, .customLong("jobs")], help: "Files downloaded at once (1-64).")
    var jobs = 4

    @Option(
        name: [.customShort("x"), .customLong("connections")],
        help: "Connections per file (1-32; default 8), and segments of a streaming title fetched at once (default 16).")
    var connections: Int?

    @Option(
        name: .customLong("min-fragment"),
        help: ArgumentHelp(
            "Smallest byte range planned for one connection (e.g. 512K, 4M); at the end of a slow file, idle connections take smaller ones. A streaming title's single file comes in pieces of this size: byte ranges of one file once it is at least twice as large, a DASH representation's one media file always.",
            valueName: "size"))
    var minFragment = "4M"

    @Option(
        name: .customLong("max-stream-size"),
        help: ArgumentHelp(
            "Most bytes kept of a response that never says its length (an endless stream, a radio URL): past it the entry fails and nothing of it is kept (e.g. 2G; default 64G).",
            valueName: "size"))
    var maxStreamSize = "64G"

    @Option(
        name: [.customShort("H"), .customLong("header")],
        help: ArgumentHelp(
            "Extra request header 'Name: value' for every entry (repeatable); sent to its URLs' hosts (mirrors too), never to another host after a redirect.",
            valueName: "header"))
    var headers: [String] = []

    @Option(help: "Failures in a row (without progress) before a file is given up.")
    var retries = 5

    @Option(help: ArgumentHelp("Seconds without data before a connection counts as stalled.", valueName: "sec"))
    var timeout = 30

    @Option(
        name: .customLong("lowest-speed-limit"),
        help: ArgumentHelp(
            "Abandon and retry a connection slower than this per second for --timeout seconds (e.g. 10K; 0: off).",
            valueName: "size"))
    var lowestSpeedLimit = "0"

    @Option(
        name: .customLong("limit-rate"),
        help: ArgumentHelp(
            "Most bytes per second for the whole run, all files and connections together (e.g. 500K, 2M; 0: unlimited).",
            valueName: "size"))
    var limitRate = "0"

    @Option(
        name: .customLong("max-download-limit"),
        help: ArgumentHelp(
            "Most bytes per second for each file (e.g. 500K; 0: unlimited); an entry's max-download-limit= overrides it.",
            valueName: "size"))
    var maxDownloadLimit = "0"

    // Each flag has its --no- form, so one run can undo what the config file turns on.
    @Flag(
        name: [.customShort("k"), .customLong("insecure")], inversion: .prefixedNo,
        help: "Do not check TLS certificates (self-signed test servers); the connection is not authenticated.")
    var insecure = false

    @Option(
        name: [.customLong("ca-certificate"), .customLong("cacert")],
        help: ArgumentHelp(
            "Check TLS certificates against the CAs in this PEM file (a private CA), not the system's; "
                + "CURL_CA_BUNDLE or SSL_CERT_FILE in the environment do the same.",
            valueName: "file"),
        completion: .file())
    var caCertificate: String?

    @Flag(
        inversion: .prefixedNo,
        help: "Store MP4/MOV files with their moov first, so they play at once (default); --no-faststart keeps the origin's bytes exactly.")
    var faststart = true

    @Flag(inversion: .prefixedNo, help: "Print events as NDJSON on stdout.")
    var json = false

    @Flag(name: [.short, .customLong("quiet")], inversion: .prefixedNo, help: "Print only errors and the final summary.")
    var quiet = false

    @Option(
        name: .customLong("summary-interval"),
        help: ArgumentHelp(
            "Seconds between progress lines (files done, bytes, rate, ETA) when stderr is not a terminal, as aria2's (0: none).",
            valueName: "sec"))
    var summaryInterval = 60

    func validate() throws {
        guard (1...64).contains(jobs) else { throw ValidationError("--jobs must be between 1 and 64") }
        if let caCertificate, !FileManager.default.isReadableFile(atPath: caCertificate) {
            throw ValidationError("--ca-certificate: cannot read \(caCertificate); give a PEM file of CA certificates")
        }
        if let connections, !(1...32).contains(connections) {
            throw ValidationError("--connections must be between 1 and 32")
        }
        guard (0...86_400).contains(summaryInterval) else {
            throw ValidationError("--summary-interval must be between 0 and 86400 seconds")
        }
        // The upper bound keeps fragment arithmetic (2 × the size) far from overflow.
        guard let size = ByteCount.parse(minFragment), size >= 16 * 1024, size <= 1 << 40 else {
            throw ValidationError("--min-fragment must be a size between 16K and 1T, like 512K or 4M")
        }
        guard let streamSize = ByteCount.parse(maxStreamSize), streamSize > 0 else {
            throw ValidationError("--max-stream-size must be a size, like 2G or 64G, got '\(maxStreamSize)'")
        }
        guard (0...100).contains(retries) else { throw ValidationError("--retries must be between 0 and 100") }
        guard (1...3600).contains(timeout) else { throw ValidationError("--timeout must be between 1 and 3600 seconds") }
        guard let speed = ByteCount.parse(lowestSpeedLimit), speed <= Int64(Int32.max) else {
            throw ValidationError("--lowest-speed-limit must be a size per second, like 10K or 1M (0: off)")
        }
        for (name, value) in [("--limit-rate", limitRate), ("--max-download-limit", maxDownloadLimit)]
        where ByteCount.parse(value) == nil {
            throw ValidationError("\(name) must be a size per second, like 500K or 2M (0: unlimited), got '\(value)'")
        }
        try HeaderArgument.validate(headers)
    }

    func engineOptions(network: NetworkOptions, titles: TitleOptions) -> PrefetchOptions {
        var options = PrefetchOptions()
        options.jobs = jobs
        if let connections {
            options.connectionsPerFile = connections
            options.resourcesPerTitle = connections
        }
        options.minFragment = ByteCount.parse(minFragment) ?? options.minFragment
        options.maxStreamSize = ByteCount.parse(maxStreamSize) ?? options.maxStreamSize
        options.headers = headers
        options.retries = retries
        options.stallTimeout = timeout
        options.lowestSpeedLimit = ByteCount.parse(lowestSpeedLimit) ?? 0
        options.limitRate = ByteCount.parse(limitRate) ?? 0
        options.maxDownloadLimit = ByteCount.parse(maxDownloadLimit) ?? 0
        options.verifyTLS = !insecure
        // For the whole process: the tier's requests are checked against them too.
        if let caCertificate { CertificateAuthorities.use(file: caCertificate) }
        options.faststart = faststart
        options.renditions = titles.selection
        network.apply(to: &options)
        return options
    }
}
