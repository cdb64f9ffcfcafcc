/// Failures of the cache itself: its files, index and locks.
public enum CacheError: Error, CustomStringConvertible, Equatable {
    case corruptState(path: String, reason: String)
    case index(path: String, reason: String)
    case io(SystemError)
    /// The cache directory is on a read-only file system.
    case readOnly(path: String)

    public var description: String {
        switch self {
        case .corruptState(let path, let reason):
            "job state \(path) is \(reason); remove that job's folder to start it again"
        case .index(let path, let reason):
            "cache index \(path): \(reason)"
        case .io(let error):
            error.description
        case .readOnly(let path):
            "the cache directory \(path) is on a read-only file system; remount it read-write or choose another --cache-dir"
        }
    }
}
