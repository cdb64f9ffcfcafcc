/// Why a finished download did not become a cached object. The download layer turns it
/// into a `JobFailure` (`JobFailure+Commit.swift`); the system error underneath is kept.
public enum CommitError: Error, CustomStringConvertible {
    /// A download was handed over before every byte was held: a broken invariant.
    case incomplete(url: String)
    /// The data file holds fewer bytes than were written to it (cut behind our back).
    case shortDataFile(path: String, size: Int64, expected: Int64)
    /// The bytes do not match the list's `checksum=`; nothing was cached.
    case checksumMismatch(expected: ExpectedChecksum, actual: String?)
    /// A copy from the tier is not the bytes its record names; nothing was cached.
    case tierCopyDiffers(expected: String, actual: String)
    /// The cache's files or index failed.
    case cache(CacheError)
    /// A helper threw an error outside its contract (they throw `SystemError` or
    /// `CacheError`); kept whole for the message.
    case unexpected(any Error)

    /// The commit's error for one thrown by file or index code.
    init(classifying error: any Error) {
        switch error {
        case let error as CacheError: self = .cache(error)
        case let error as SystemError: self = .cache(.io(error))
        default: self = .unexpected(error)
        }
    }

    public var description: String {
        switch self {
        case .incomplete(let url):
            "internal error: commit of an incomplete download of \(url)"
        case .shortDataFile(let path, let size, let expected):
            "\(path) holds \(size) bytes, expected \(expected); run again to re-fetch"
        case .checksumMismatch(let expected, let actual):
            "checksum mismatch: the list says \(expected), the origin sent "
                + "\(expected.algorithm.rawValue)=\(actual ?? "?"); nothing was cached"
        case .tierCopyDiffers(let expected, let actual):
            "its bytes have sha256 \(actual), the record says \(expected)"
        case .cache(let error):
            error.description
        case .unexpected(let error):
            "\(error)"
        }
    }

    /// Which of these it is, without what it carries: what a failure keeps of it.
    public enum Kind: Sendable, Equatable {
        case incomplete, shortDataFile, checksumMismatch, tierCopyDiffers, cache, unexpected
    }

    public var kind: Kind {
        switch self {
        case .incomplete: .incomplete
        case .shortDataFile: .shortDataFile
        case .checksumMismatch: .checksumMismatch
        case .tierCopyDiffers: .tierCopyDiffers
        case .cache: .cache
        case .unexpected: .unexpected
        }
    }

    /// Whether the bytes themselves are wrong (rather than the disk): a copy from the
    /// tier that fails this way is fetched again from the origin.
    public var blamesTheBytes: Bool {
        switch self {
        case .checksumMismatch, .tierCopyDiffers: true
        case .incomplete, .shortDataFile, .cache, .unexpected: false
        }
    }
}
