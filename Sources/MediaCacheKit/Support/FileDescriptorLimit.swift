import Foundation

/// The process's RLIMIT_NOFILE. Every connection, data file, journal and the index hold
/// descriptors, and libdispatch needs a few of its own before any signal source works
/// (below about a dozen it traps in `_dispatch_epoll_init`). A login shell's soft limit
/// is often 1024 under a far higher hard limit: raise it at start, as servers do.
public enum FileDescriptorLimit {
    /// Fewer descriptors than this and a run is refused at start. Measured: a prefetch of
    /// one file over one connection needs 19 (3 standard streams, libdispatch's epoll and
    /// event descriptors, SQLite's database, WAL and shared memory, the key lock file,
    /// curl's wake-up pair, the data file, its journal and directory, the socket); below
    /// 12 libdispatch crashes. 32 leaves room for the connections of one file.
    public static let minimumForARun = 32

    /// Raises the soft limit to the hard limit (or to the kernel's `fs.nr_open` when the
    /// hard limit is unlimited) and returns the soft limit in force afterwards.
    @discardableResult
    public static func raiseSoftLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return current }
        var raised = limit
        raised.rlim_cur = limit.rlim_max
        if setrlimit(resource, &raised) != 0, let ceiling = kernelCeiling, ceiling > limit.rlim_cur {
            // An unlimited hard limit cannot be the soft limit of descriptors (EPERM).
            raised.rlim_cur = min(ceiling, limit.rlim_max)
            _ = setrlimit(resource, &raised)
        }
        return current
    }

    /// The soft limit now in force (Int.max when unlimited: RLIM_INFINITY is all ones).
    public static var current: Int {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return Int.max }
        return limit.rlim_cur == rlim_t.max ? Int.max : Int(clamping: limit.rlim_cur)
    }

    private static var resource: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_NOFILE.rawValue) }

    /// `/proc/sys/fs/nr_open`: the most descriptors the kernel gives one process.
    private static var kernelCeiling: rlim_t? {
        guard let text = try? String(contentsOfFile: "/proc/sys/fs/nr_open", encoding: .utf8) else { return nil }
        return rlim_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
