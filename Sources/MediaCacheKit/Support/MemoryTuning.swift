import CShims

/// Process-wide allocator settings, for the command line to apply at start.
public enum MemoryTuning {
    /// glibc gives every thread that allocates an arena of its own, and the commit and
    /// hashing threads then keep their freed buffers resident (about 40 MB over 200
    /// files of 5 MiB). A couple of shared arenas keep the peak down at no measured cost.
    public static func limitMallocArenas(to count: Int32 = 2) {
        _ = CShims_limit_malloc_arenas(count)
    }
}
