/// Failures of the cache itself: its files, index and locks.
public enum CacheError: Error, CustomStringConvertible, Equatable {
    case corruptState(path: String, reason: String)
    case index(path: String, reason: String)
    case io(SystemError)

    public var description: String {
        switch self {
        case .corruptState(let path, let reason):
            "job state \(path) is \(reason); remove that job's folder to start it again"
        case .index(let path, let reason):
            "cache index \(path): \(reason)"
        case .io(let error):
            error.description
        }
    }
}
