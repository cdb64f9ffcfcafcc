#if canImport(Glibc)
import Glibc
#endif

/// The process's open-file limit (`RLIMIT_NOFILE`).
public enum FileDescriptorLimit {
    /// Raises the soft limit to the hard limit; returns the soft limit in force afterwards.
    @discardableResult
    public static func raiseSoftLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return current }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return current
    }

    /// The soft limit in force.
    public static var current: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        return Int(clamping: min(limit.rlim_cur, rlim_t(Int.max / 2)))
    }
}
